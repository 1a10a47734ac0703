"""Package versions (SemVer) and the version requirements of ``Require``.

A requirement is written the way Murano accepted it, and normalised the way
Murano's engine did before matching:

=================  ==========================
written            means
=================  ==========================
(empty), ``0``     ``>=0.0.0,<1.0.0-0``
``1.2``/``==1.2``  ``>=1.2.0,<1.3.0-0``
``==1``            ``>=1.0.0,<2.0.0-0``
``>1.2``           ``>=1.3.0-0``
``>=1.2``          ``>=1.2.0``
``<1.2``           ``<1.2.0-0``
``<=1.2``          ``<1.3.0-0``
``!=1.2``          ``>=1.3.0-0`` (sic: Murano's rule)
``=1.2.3``         ``==1.2.3``
=================  ==========================

An empty requirement is ``0``, as in Murano's code and the versioning
spec ("we assume the version '0' - i.e. the last available pre-release
version of a package"): the highest 0.x, its pre-releases included
(``0.5.0-rc.1``), never 1.0.0 or later, so packages written against a 0.x
library keep it when a 1.0 appears.

Clauses naming a full version (with a patch number) are kept as written.
The ``-0`` suffixes make the pre-releases inside a range match, so ``1.2``
accepts ``1.2.5-rc.1`` but not ``1.3.0-rc.1``. Matching itself is done by
``SimpleSpec`` on the normalised text.
"""

from __future__ import annotations

import dataclasses
import re
import typing as t

# semantic_version ships no type information; its classes are typed as Any.
from semantic_version import SimpleSpec
from semantic_version import Version as Version

from laguna.packages.errors import INVALID_REQUIREMENT, INVALID_VERSION, VersionError

ZERO = Version("0.0.0")

# A clause's operator, and a partial version (only major, or major.minor).
_CLAUSE = re.compile(r"^(==|!=|>=|<=|>|<|=)?(.*)$")
_PARTIAL = re.compile(r"^(0|[1-9][0-9]*)(?:\.(0|[1-9][0-9]*))?$")
_OPERATORS = ("==", "!=", ">=", "<=", ">", "<")


def parse_version(text: str | None) -> Version:
    """Parse a package version; empty or None is ``0.0.0``.

    Full SemVer is accepted, pre-release and build included. A shortened
    version (``1`` or ``1.2``, as a YAML number would give) is padded with
    zeros, as Murano did.
    """
    if text is None:
        return ZERO
    cleaned = str(text).strip()
    if not cleaned:
        return ZERO
    partial = _PARTIAL.match(cleaned)
    if partial:
        return Version(major=int(partial.group(1)), minor=int(partial.group(2) or 0), patch=0)
    try:
        return Version(cleaned)
    except ValueError:
        raise VersionError(f"invalid version {cleaned!r}: expected SemVer like 1.2.3",
                           INVALID_VERSION) from None


def same_major(a: Version, b: Version) -> bool:
    """Whether a package version may use classes of another version of itself."""
    return bool(a.major == b.major)


@dataclasses.dataclass(frozen=True)
class Requirement:
    """A normalised version requirement; ``text`` is what was written."""

    text: str = dataclasses.field(compare=False)
    clauses: tuple[str, ...] = ()
    _spec: SimpleSpec | None = dataclasses.field(
        default=None, compare=False, repr=False, hash=False)
    # Matching is asked again and again for the same few versions (every
    # class() contract check), and SimpleSpec.match is slow, so answers are kept.
    _answers: dict[Version, bool] = dataclasses.field(
        default_factory=dict, compare=False, repr=False, hash=False)

    def __str__(self) -> str:
        return ",".join(self.clauses) if self.clauses else "*"

    def match(self, version: Version) -> bool:
        """Whether ``version`` satisfies the requirement."""
        answer = self._answers.get(version)
        if answer is None:
            answer = self._spec is None or bool(self._spec.match(version))
            self._answers[version] = answer
        return answer

    def filter(self, versions: t.Iterable[Version]) -> list[Version]:
        """The matching versions, in ascending order."""
        return sorted(v for v in versions if self.match(v))

    def select(self, versions: t.Iterable[Version]) -> Version | None:
        """The highest matching version, or None."""
        matching = self.filter(versions)
        return matching[-1] if matching else None


def _spec_of(clauses: tuple[str, ...]) -> SimpleSpec | None:
    return SimpleSpec(",".join(clauses)) if clauses else None


def parse_requirement(text: str | None) -> Requirement:
    """Parse and normalise a requirement (see the module docstring)."""
    written = "" if text is None else str(text)
    compact = re.sub(r"\s+", "", written) or "0"
    clauses: list[str] = []
    for clause in compact.split(","):
        clauses.extend(_normalise_clause(clause, written))
    normalised = tuple(clauses)
    try:
        spec = _spec_of(normalised)
    except ValueError:
        raise VersionError(f"invalid version requirement {written!r}",
                           INVALID_REQUIREMENT) from None
    return Requirement(written, normalised, spec)


def requirement_for(version: Version) -> Requirement:
    """The requirement matching exactly ``version`` (``==1.2.3``)."""
    return parse_requirement(f"=={version}")


def same_major_requirement(version: Version) -> Requirement:
    """What a package requires of itself: any version with the same major."""
    return parse_requirement(f"=={version.major}")


def _normalise_clause(clause: str, written: str) -> list[str]:
    if clause == "*":
        return []
    match = _CLAUSE.match(clause)
    assert match is not None  # the pattern accepts any text
    operator, version_text = match.group(1) or "==", match.group(2)
    if operator == "=":
        operator = "=="
    partial = _PARTIAL.match(version_text)
    if partial is None:
        try:
            full = Version(version_text)
        except ValueError:
            raise VersionError(
                f"invalid version requirement {written!r}: {clause!r} is not "
                f"an operator ({', '.join(_OPERATORS)}) followed by a version",
                INVALID_REQUIREMENT) from None
        return [f"{operator}{full}"]
    major = int(partial.group(1))
    minor = None if partial.group(2) is None else int(partial.group(2))
    low = Version(major=major, minor=minor or 0, patch=0)
    # The next version a partial bound rounds up to: next minor when the
    # minor was written, next major otherwise.
    high = (Version(major=major + 1, minor=0, patch=0) if minor is None
            else Version(major=major, minor=minor + 1, patch=0))
    if operator == "==":
        return [f">={low}", f"<{high}-0"]
    if operator == ">=":
        return [f">={low}"]
    if operator == "<":
        return [f"<{low}-0"]
    # ">", "<=" and "!=" all round up to the next partial version.
    if operator == "<=":
        return [f"<{high}-0"]
    return [f">={high}-0"]
