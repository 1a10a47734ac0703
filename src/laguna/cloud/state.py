"""What a driver knows of a stack: its resources as realised, as plain JSON data.

Records are kept in creation order, so deleting walks them backwards. A record
is written with status ``creating`` before anything is started for it, so an
engine killed halfway leaves a record that the next push or delete cleans up.
"""

from __future__ import annotations

import dataclasses
import typing as t

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


@dataclasses.dataclass(slots=True)
class StackState:
    stack: str
    template: dict[str, t.Any] | None = None    # last template pushed successfully
    parameters: dict[str, t.Any] = dataclasses.field(default_factory=dict)
    outputs: dict[str, t.Any] = dataclasses.field(default_factory=dict)
    records: dict[str, ResourceRecord] = dataclasses.field(default_factory=dict)

    def by_id(self, resource_id: t.Any) -> ResourceRecord | None:
        for record in self.records.values():
            if record.id == resource_id:
                return record
        return None

    def of_type(self, *types: str) -> list[ResourceRecord]:
        return [r for r in self.records.values() if r.type in types]

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
                   records={r.name: r for r in records})
