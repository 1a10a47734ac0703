"""The local cloud's state files: the template stored once, saves that append
what changed, snapshots, files of the first format, crashes in an append."""

from __future__ import annotations

import json
import typing as t
from pathlib import Path

import pytest

from laguna.cloud.hot import Diff
from laguna.cloud.local import statefiles
from laguna.cloud.local.driver import LocalCloud
from laguna.cloud.local.statefiles import StateFiles

MakeCloud = t.Callable[..., LocalCloud]
MARK = "only-in-the-template-0123456789"


def nets(*names: str) -> dict[str, t.Any]:
    """Resources with nothing to start: a network and a subnet per name."""
    resources: dict[str, t.Any] = {}
    for name in names:
        resources[f"net-{name}"] = {"type": "OS::Neutron::Net",
                                    "properties": {"name": f"{name}-{MARK}"}}
        resources[f"sub-{name}"] = {"type": "OS::Neutron::Subnet",
                                    "properties": {"network": {"get_resource": f"net-{name}"},
                                                   "cidr": "10.0.0.0/24"}}
    return {"resources": resources,
            "outputs": {f"{n}-cidr": {"value": {"get_attr": [f"sub-{n}", "cidr"]}}
                        for n in names}}


def state_file(cloud: LocalCloud, stack: str = "env-1") -> Path:
    return cloud.directory / "stacks" / f"{stack}.json"


def read_again(cloud: LocalCloud, stack: str = "env-1") -> dict[str, t.Any]:
    """The state as a process of its own reads it from the file."""
    state = StateFiles(cloud.directory / "stacks").load(stack)
    assert state is not None
    return state.to_json()


def test_the_state_file_holds_the_template_once(cloud: LocalCloud) -> None:
    cloud.push_stack("env-1", nets("a"))
    text = state_file(cloud).read_text()
    assert text.count(MARK) == 1
    records = read_again(cloud)["records"]
    assert [r["definition"] for r in records] == list(nets("a")["resources"].values())
    assert records[0]["properties"] == {"name": f"a-{MARK}"}
    assert records[1]["properties"]["network"] == records[0]["id"]


def test_a_push_appends_what_changed_and_reads_back_the_same(
        cloud: LocalCloud) -> None:
    cloud.push_stack("env-1", nets("a"))
    first = state_file(cloud).read_text()
    cloud.push_stack("env-1", nets("a", "b"))
    text = state_file(cloud).read_text()
    assert text.startswith(first)
    [change] = [json.loads(line) for line in text[len(first):].splitlines()]
    assert list(change["template"]["resources"]["+"]) == ["net-b", "sub-b"]
    assert [r["name"] for r in change["records"]] == ["net-b", "sub-b"]
    assert text.count(MARK) == 2        # a's once, b's once
    state = cloud.files.load("env-1", cached=True)
    assert state is not None
    assert read_again(cloud) == state.to_json()
    assert cloud.get_template("env-1") == nets("a", "b")


def test_removed_resources_and_outputs_read_back_removed(cloud: LocalCloud) -> None:
    cloud.push_stack("env-1", nets("a", "b", "c"))
    result = cloud.push_stack("env-1", nets("a", "c"))
    assert result.diff == Diff((), ("net-b", "sub-b"), ())
    again = read_again(cloud)
    assert [r["name"] for r in again["records"]] == ["net-a", "net-c", "sub-a", "sub-c"]
    assert again["template"] == nets("a", "c")
    assert again["outputs"] == {"a-cidr": "10.0.0.0/24", "c-cidr": "10.0.0.0/24"}


def test_a_push_of_an_unchanged_template_writes_nothing(cloud: LocalCloud) -> None:
    cloud.push_stack("env-1", nets("a", "b"))
    before = state_file(cloud).stat()
    result = cloud.push_stack("env-1", nets("a", "b"))
    after = state_file(cloud).stat()
    assert result.diff == Diff((), (), ())
    assert result.outputs == {"a-cidr": "10.0.0.0/24", "b-cidr": "10.0.0.0/24"}
    assert (after.st_ino, after.st_size, after.st_mtime_ns) == (
        before.st_ino, before.st_size, before.st_mtime_ns)


def test_appended_lines_are_folded_into_a_snapshot(
        cloud: LocalCloud, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(statefiles, "COMPACT_BYTES", 0)
    names: list[str] = []
    for name in "abcdef":
        names.append(name)
        cloud.push_stack("env-1", nets(*names))
    lines = state_file(cloud).read_text().splitlines()
    # each append outweighing the snapshot before it makes the next save a snapshot
    assert len(lines) < len(names)
    assert json.loads(lines[0])["format"] == 2
    assert read_again(cloud)["template"] == nets(*names)


def test_a_file_of_the_first_format_loads_and_is_rewritten(
        make_cloud: MakeCloud, tmp_path: Path) -> None:
    cloud = make_cloud()
    cloud.push_stack("env-1", nets("a"))
    state = read_again(cloud)
    # as the first format wrote it: one JSON object, records whole, no newline
    state_file(cloud).write_text(json.dumps(state, separators=(",", ":")))
    other = make_cloud()        # a process of its own: nothing cached
    assert other.get_template("env-1") == nets("a")
    assert other.stack_outputs("env-1") == {"a-cidr": "10.0.0.0/24"}
    result = other.push_stack("env-1", nets("a", "b"))
    assert result.diff == Diff(("net-b", "sub-b"), (), ())
    lines = state_file(other).read_text().splitlines()
    assert len(lines) == 1 and json.loads(lines[0])["format"] == 2
    again = read_again(other)
    assert again["records"][:2] == state["records"]


def test_an_append_cut_short_is_ignored_and_the_next_save_snapshots(
        make_cloud: MakeCloud) -> None:
    cloud = make_cloud()
    cloud.push_stack("env-1", nets("a"))
    good = read_again(cloud)
    with open(state_file(cloud), "a") as f:
        f.write('{"records":[{"name":"net-x","ty')
    other = make_cloud()
    assert read_again(other) == good
    other.push_stack("env-1", nets("a", "b"))
    lines = state_file(other).read_text().splitlines()
    assert len(lines) == 1
    assert [r["name"] for r in read_again(other)["records"]] == [
        "net-a", "sub-a", "net-b", "sub-b"]     # a's, then b's (created by the second push)


def test_a_write_by_another_process_is_read_before_the_next_push(
        make_cloud: MakeCloud) -> None:
    mine, theirs = make_cloud(), make_cloud()
    mine.push_stack("env-1", nets("a"))
    theirs.push_stack("env-1", nets("a", "b"))
    result = mine.push_stack("env-1", nets("a", "b", "c"))
    assert result.diff == Diff(("net-c", "sub-c"), (), ())
    assert [r["name"] for r in read_again(mine)["records"]] == [
        "net-a", "sub-a", "net-b", "sub-b", "net-c", "sub-c"]


def test_a_record_made_again_under_its_name_keeps_its_place_after_reading(
        cloud: LocalCloud) -> None:
    cloud.push_stack("env-1", nets("a", "b"))
    template = nets("a", "b")
    template["resources"]["net-a"] = {"type": "OS::Neutron::Router"}
    template["resources"]["sub-a"]["properties"]["network"] = "elsewhere"
    result = cloud.push_stack("env-1", template)
    assert result.diff == Diff(("net-a",), ("net-a",), ("sub-a",))
    state = cloud.files.load("env-1", cached=True)
    assert state is not None
    assert read_again(cloud) == state.to_json()
    assert list(state.records)[-1] == "net-a"
