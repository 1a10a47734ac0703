"""Versions and requirements, with Murano's normalisation rules."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from laguna.packages.errors import VersionError
from laguna.packages.versions import (
    Version,
    parse_requirement,
    parse_version,
    requirement_for,
    same_major,
    same_major_requirement,
)


@pytest.mark.parametrize(("text", "expected"), [
    (None, "0.0.0"),
    ("", "0.0.0"),
    ("  ", "0.0.0"),
    ("1", "1.0.0"),
    ("1.2", "1.2.0"),
    ("1.2.3", "1.2.3"),
    ("1.2.3-rc.1", "1.2.3-rc.1"),
    ("1.2.3-rc.1+build.5", "1.2.3-rc.1+build.5"),
    (" 0.1.0 ", "0.1.0"),
])
def test_parse_version(text: str | None, expected: str) -> None:
    assert str(parse_version(text)) == expected


@pytest.mark.parametrize("text", ["abc", "1.2.3.4", "v1.2.3", "01.2.3", "1.2-beta"])
def test_parse_version_rejects(text: str) -> None:
    with pytest.raises(VersionError) as info:
        parse_version(text)
    assert info.value.code == "LAG-E0501"
    assert info.value.message == f"invalid version {text!r}: expected SemVer like 1.2.3"


@pytest.mark.parametrize(("text", "normalised"), [
    # empty is "0", the partial version 0: 0.x (the versioning spec, issue 23)
    (None, ">=0.0.0,<1.0.0-0"),
    ("", ">=0.0.0,<1.0.0-0"),
    ("0", ">=0.0.0,<1.0.0-0"),
    ("==0", ">=0.0.0,<1.0.0-0"),
    ("1.2", ">=1.2.0,<1.3.0-0"),
    ("==1.2", ">=1.2.0,<1.3.0-0"),
    ("==1", ">=1.0.0,<2.0.0-0"),
    ("1", ">=1.0.0,<2.0.0-0"),
    (">1.2", ">=1.3.0-0"),
    (">1", ">=2.0.0-0"),
    (">=1.2", ">=1.2.0"),
    ("<1.2", "<1.2.0-0"),
    ("<=1.2", "<1.3.0-0"),
    ("<=1", "<2.0.0-0"),
    ("!=1.2", ">=1.3.0-0"),
    ("=1.2.3", "==1.2.3"),
    ("=1.2", ">=1.2.0,<1.3.0-0"),
    ("1.2.3", "==1.2.3"),
    (">=0.0.3", ">=0.0.3"),
    ("<2.0.0", "<2.0.0"),
    ("!=1.2.3", "!=1.2.3"),
    ("==1.2.3-rc.1", "==1.2.3-rc.1"),
    (" >= 1.2 , < 2 ", ">=1.2.0,<2.0.0-0"),
    (">=1.2,<=1.4", ">=1.2.0,<1.5.0-0"),
    ("*", "*"),
])
def test_requirement_normalisation(text: str | None, normalised: str) -> None:
    assert str(parse_requirement(text)) == normalised


def test_requirement_keeps_written_text() -> None:
    requirement = parse_requirement(" 1.2 ")
    assert requirement.text == " 1.2 "
    assert requirement.clauses == (">=1.2.0", "<1.3.0-0")


def test_requirements_compare_by_meaning() -> None:
    assert parse_requirement("1.2") == parse_requirement("==1.2")
    assert parse_requirement("1.2") != parse_requirement("1.3")


@pytest.mark.parametrize(("text", "version", "matches"), [
    # The seed's examples: "1.2" is 1.2.0 <= v < 1.3, pre-releases inside match.
    ("1.2", "1.2.0", True),
    ("1.2", "1.2.9", True),
    ("1.2", "1.2.5-rc.1", True),
    ("1.2", "1.3.0", False),
    ("1.2", "1.3.0-rc.1", False),
    ("1.2", "1.1.9", False),
    # "0" (and empty, and "==0") is the latest 0.x, pre-releases included,
    # never 1.0.0 or later (issue 23: the spec's "version '0'").
    ("0", "0.1.0", True),
    ("0", "0.9.9-dev", True),
    ("0", "1.0.0", False),
    ("0", "1.0.0-rc.1", False),
    ("", "0.3.0", True),
    ("", "1.0.0", False),
    ("", "3.0.0-rc.1", False),
    ("==0", "0.9.9-dev", True),
    ("==0", "1.0.0", False),
    ("==0", "1.0.0-rc.1", False),
    ("1", "1.99.0", True),
    ("1", "2.0.0", False),
    (">1.2", "1.3.0-alpha", True),
    (">1.2", "1.2.9", False),
    ("<=1.2", "1.2.99", True),
    ("<=1.2", "1.3.0-0", False),
    ("<1.2", "1.1.9", True),
    ("<1.2", "1.2.0-rc.1", False),
    ("!=1.2", "1.2.1", False),
    ("!=1.2", "1.1.0", False),
    ("!=1.2", "1.3.0", True),
    ("=1.2.3", "1.2.3", True),
    ("=1.2.3", "1.2.4", False),
    ("*", "7.0.0", True),
])
def test_requirement_match(text: str, version: str, matches: bool) -> None:
    assert parse_requirement(text).match(Version(version)) is matches


def test_select_returns_highest_match() -> None:
    versions = [parse_version(v) for v in ["1.1.9", "1.2.0", "1.2.10-rc", "1.2.9", "1.3.0-rc"]]
    assert parse_requirement("1.2").select(versions) == Version("1.2.10-rc")
    assert parse_requirement("1.2").filter(versions) == [
        Version("1.2.0"), Version("1.2.9"), Version("1.2.10-rc")]


def test_select_without_match_is_none() -> None:
    assert parse_requirement("2").select([Version("1.0.0")]) is None


@pytest.mark.parametrize(("text", "clause"), [
    ("abc", "abc"), ("~1.2", "~1.2"), ("^1.2.3", "^1.2.3"), (">>1", ">>1"),
    ("1.2,", ""), ("1.2-beta", "1.2-beta"), ("1.2.3.4", "1.2.3.4"),
])
def test_requirement_rejects(text: str, clause: str) -> None:
    with pytest.raises(VersionError) as info:
        parse_requirement(text)
    assert info.value.code == "LAG-E0502"
    assert info.value.message == (
        f"invalid version requirement {text!r}: {clause!r} is not an operator "
        f"(==, !=, >=, <=, >, <) followed by a version")


def test_same_major() -> None:
    assert same_major(Version("1.2.3"), Version("1.9.0"))
    assert not same_major(Version("1.2.3"), Version("2.0.0"))
    assert str(same_major_requirement(Version("1.2.3"))) == ">=1.0.0,<2.0.0-0"
    assert str(requirement_for(Version("1.2.3-rc.1"))) == "==1.2.3-rc.1"


versions = st.builds(
    lambda major, minor, patch, pre: Version(f"{major}.{minor}.{patch}" + (f"-{pre}" if pre else "")),
    st.integers(0, 20), st.integers(0, 20), st.integers(0, 20),
    st.sampled_from(["", "0", "alpha", "rc.1"]))


@given(versions, st.integers(0, 20), st.integers(0, 20))
def test_partial_major_minor_is_half_open_range(version: Version, major: int, minor: int) -> None:
    requirement = parse_requirement(f"{major}.{minor}")
    inside = (version.major, version.minor) == (major, minor) and not (
        version.patch == 0 and version.prerelease)
    assert requirement.match(version) is inside


@given(versions, st.integers(0, 20))
def test_partial_major_is_half_open_range(version: Version, major: int) -> None:
    inside = version.major == major and not (
        version.minor == 0 and version.patch == 0 and version.prerelease)
    assert parse_requirement(f"=={major}").match(version) is inside
    # "0" too is the partial version 0 (issue 23), no longer "any version"
    assert parse_requirement(str(major)).match(version) is inside


@given(st.lists(versions, max_size=12), st.integers(0, 20))
def test_select_is_max_of_matches(candidates: list[Version], major: int) -> None:
    requirement = parse_requirement(str(major))
    matching = [v for v in candidates if requirement.match(v)]
    assert requirement.select(candidates) == (max(matching) if matching else None)


@given(versions)
def test_full_version_round_trips(version: Version) -> None:
    assert parse_version(str(version)) == version
    assert parse_requirement(str(version)).match(version)


@given(versions)
def test_same_major_requirement_matches_all_but_prereleases_of_major_zero(version: Version) -> None:
    # Murano's rule: "==1" starts at 1.0.0, so 1.0.0-rc is outside.
    prerelease_of_major = (version.minor, version.patch) == (0, 0) and bool(version.prerelease)
    assert same_major_requirement(version).match(version) is not prerelease_of_major


@given(versions, versions)
def test_greater_than_partial_is_at_least_next_minor(bound: Version, version: Version) -> None:
    requirement = parse_requirement(f">{bound.major}.{bound.minor}")
    assert requirement.match(version) is (version >= Version(f"{bound.major}.{bound.minor + 1}.0-0"))


def test_match_answers_are_remembered_per_version() -> None:
    requirement = parse_requirement("1.2")
    versions = [parse_version(v) for v in ["1.2.0", "1.2.5-rc.1", "1.3.0-rc.1", "1.1.9"]]
    first = [requirement.match(v) for v in versions]
    assert first == [True, True, False, False]
    assert [requirement.match(v) for v in versions] == first
    assert requirement._answers == dict(zip(versions, first))
