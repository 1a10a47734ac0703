"""What a driver knows of a stack: its resources as realised, as plain JSON data.

Records are kept in creation order, so deleting walks them backwards. A record
is written with status ``creating`` before anything is started for it, so an
engine killed halfway leaves a record that the next push or delete cleans up.
"""

from __future__ import annotations

import dataclasses
import typing as t
from collections.abc import MutableMapping

CREATING = "creating"
COMPLETE = "complete"


@dataclasses.dataclass(slots=True)
class ResourceRecord:
    name: str
    type: str
    id: str
    definition: dict[str, t.Any]            # the template's text of the resource
    properties: dict[str, t.Any]            # evaluated properties
    status: str = CREATING
    data: dict[str, t.Any] = dataclasses.field(default_factory=dict)  # driver's own

    def to_json(self) -> dict[str, t.Any]:
        # Not dataclasses.asdict: it deep-copies, and states are saved often.
        return {"name": self.name, "type": self.type, "id": self.id,
                "definition": self.definition, "properties": self.properties,
                "status": self.status, "data": self.data}

    @classmethod
    def from_json(cls, data: t.Mapping[str, t.Any]) -> ResourceRecord:
        return cls(**data)


class Records(MutableMapping[str, ResourceRecord]):
    """A stack's records by name, in creation order, indexed by id and by type.

    Type attributes ask for records by id and by type on every ``get_attr``;
    scanning every record each time made a push of a stack of N resources
    cost N² (a record's id and type never change once it is added)."""

    __slots__ = ("_records", "_by_id", "_by_type")

    def __init__(self, records: t.Iterable[ResourceRecord] = ()) -> None:
        self._records: dict[str, ResourceRecord] = {}
        self._by_id: dict[t.Any, ResourceRecord] = {}
        self._by_type: dict[str, dict[str, ResourceRecord]] = {}
        for record in records:
            self[record.name] = record

    def __getitem__(self, name: str) -> ResourceRecord:
        return self._records[name]

    def __setitem__(self, name: str, record: ResourceRecord) -> None:
        if name in self._records:
            del self[name]
        self._records[name] = record
        self._by_id.setdefault(record.id, record)
        self._by_type.setdefault(record.type, {})[name] = record

    def __delitem__(self, name: str) -> None:
        record = self._records.pop(name)
        if self._by_id.get(record.id) is record:
            del self._by_id[record.id]
            # another record of the same id (none in practice) takes its place
            for other in self._records.values():
                if other.id == record.id:
                    self._by_id[other.id] = other
                    break
        del self._by_type[record.type][name]

    def __iter__(self) -> t.Iterator[str]:
        return iter(self._records)

    def __len__(self) -> int:
        return len(self._records)

    def __contains__(self, name: object) -> bool:
        return name in self._records

    def get(self, name: str, default: t.Any = None) -> t.Any:
        return self._records.get(name, default)

    def values(self) -> t.ValuesView[ResourceRecord]:
        return self._records.values()

    def by_id(self, resource_id: t.Any) -> ResourceRecord | None:
        try:
            return self._by_id.get(resource_id)
        except TypeError:       # an unhashable value where an id was expected
            return None

    def of_type(self, *types: str) -> list[ResourceRecord]:
        if len(types) == 1:
            return list(self._by_type.get(types[0], {}).values())
        return [r for r in self._records.values() if r.type in types]


@dataclasses.dataclass(slots=True)
class StackState:
    stack: str
    template: dict[str, t.Any] | None = None    # last template pushed successfully
    parameters: dict[str, t.Any] = dataclasses.field(default_factory=dict)
    outputs: dict[str, t.Any] = dataclasses.field(default_factory=dict)
    records: Records = dataclasses.field(default_factory=Records)
    #: what the last push computed, in memory only (``stacks.Memo``); None when
    #: the records may not match it (loaded from a file, a push failed)
    memo: t.Any = dataclasses.field(default=None, compare=False, repr=False)

    def by_id(self, resource_id: t.Any) -> ResourceRecord | None:
        return self.records.by_id(resource_id)

    def of_type(self, *types: str) -> list[ResourceRecord]:
        return self.records.of_type(*types)

    def to_json(self) -> dict[str, t.Any]:
        return {"stack": self.stack, "template": self.template,
                "parameters": self.parameters, "outputs": self.outputs,
                "records": [r.to_json() for r in self.records.values()]}

    @classmethod
    def from_json(cls, data: t.Mapping[str, t.Any]) -> StackState:
        records = [ResourceRecord.from_json(r) for r in data.get("records", [])]
        return cls(stack=data["stack"], template=data.get("template"),
                   parameters=dict(data.get("parameters") or {}),
                   outputs=dict(data.get("outputs") or {}),
                   records=Records(records))
