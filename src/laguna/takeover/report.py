"""What a takeover did (or would do): rows counted per tenant and kind, and every
row left out or imported with a problem, with the reason."""

from __future__ import annotations

import collections
import dataclasses

#: the kinds, in the order they are imported and reported
KINDS = ("categories", "packages", "environments", "sessions", "deployments", "templates",
         "instance stats", "api stats")
#: the tenant of rows that belong to none (categories, API statistics)
EVERYONE = "(all tenants)"


@dataclasses.dataclass(frozen=True)
class Note:
    """A row and what is to be said about it."""

    kind: str
    row_id: str
    tenant: str
    what: str
    reason: str

    def line(self) -> str:
        return f"  {self.kind} {self.row_id} ({self.what}, tenant {self.tenant}): {self.reason}"


@dataclasses.dataclass
class Report:
    head: str
    dry_run: bool
    #: tenant -> the project its rows went to
    projects: dict[str, str] = dataclasses.field(default_factory=dict)
    imported: collections.Counter[tuple[str, str]] = dataclasses.field(
        default_factory=collections.Counter)
    present: collections.Counter[tuple[str, str]] = dataclasses.field(
        default_factory=collections.Counter)
    refused: list[Note] = dataclasses.field(default_factory=list)
    #: imported, but with a problem (a package that would not load)
    warnings: list[Note] = dataclasses.field(default_factory=list)

    def add(self, tenant: str, kind: str) -> None:
        self.imported[(tenant, kind)] += 1

    def already(self, tenant: str, kind: str) -> None:
        self.present[(tenant, kind)] += 1

    def refuse(self, kind: str, row_id: str, tenant: str, what: str, reason: str) -> None:
        self.refused.append(Note(kind, row_id, tenant, what, reason))

    def warn(self, kind: str, row_id: str, tenant: str, what: str, reason: str) -> None:
        self.warnings.append(Note(kind, row_id, tenant, what, reason))

    def changed(self) -> bool:
        return bool(self.imported)

    def render(self) -> str:
        """The report as ``laguna takeover`` prints it."""
        lines = [f"Murano database at migration head {self.head}"]
        lines.append("would import:" if self.dry_run else "imported:")
        lines.extend(self._counts(self.imported))
        lines.append("already in the store:")
        lines.extend(self._counts(self.present))
        lines.append("not imported:")
        lines.extend(note.line() for note in self.refused)
        if not self.refused:
            lines.append("  nothing")
        lines.append("imported, but would not load:")
        lines.extend(note.line() for note in self.warnings)
        if not self.warnings:
            lines.append("  nothing")
        return "\n".join(lines) + "\n"

    def _counts(self, counter: collections.Counter[tuple[str, str]]) -> list[str]:
        tenants = sorted({tenant for tenant, _ in counter}, key=lambda t: (t != EVERYONE, t))
        if not tenants:
            return ["  nothing"]
        lines = []
        for tenant in tenants:
            counts = ", ".join(f"{kind} {counter[(tenant, kind)]}" for kind in KINDS
                               if counter[(tenant, kind)])
            project = self.projects.get(tenant, tenant)
            label = tenant if project == tenant else f"{tenant} (project {project})"
            lines.append(f"  {label}: {counts}" if tenant != EVERYONE else f"  {tenant}: {counts}")
        return lines
