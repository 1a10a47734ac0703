"""Package versions inside one class hierarchy, and the errors of resolution.

Every package chooses the versions of the packages it requires on its own,
so a class may end up inheriting from two versions of one package: ``A``
extends ``B`` (package x, which requires z ``1.2.0``) and ``C`` (package y,
which requires z ``1``), and both extend ``z.D``. :func:`unify` looks, for
each package present in more than one version, for a single version that
satisfies every requirement on the way (the versions already present first,
highest first, then the other versions the sources offer) and rebuilds the
affected ancestors on it, so ``A`` sees one ``D``. When no version fits and a
class would be inherited twice, the hierarchy is refused with
:class:`VersionConflictError`.

::

    ClassLoadError
     +-- VersionConflictError        LAG-E0701 two versions of a class, no common one
    NoClassFound
     +-- ClassNotVisibleError        LAG-E0704 not in the package nor its requirements
     +-- NoPackageForClassFound      LAG-E0703 no package (version) defines the class
    DslError
     +-- NoPackageFound              LAG-E0702 no version of a package fits
"""

from __future__ import annotations

import typing as t

from laguna.lang import errors
from laguna.lang.types import MuranoClass, RuntimePackage
from laguna.packages.versions import Requirement, Version, parse_requirement, requirement_for
from laguna.source import Span

if t.TYPE_CHECKING:
    from laguna.lang.classes import ClassRegistry, PackageClasses

MURANO = errors.MURANO_EXC
# Rebuilding on a chosen version may bring in other ancestors; a hierarchy
# settles in one or two rounds, the bound only guards against a loop.
_MAX_ROUNDS = 8


def _listing(items: t.Sequence[str]) -> str:
    if len(items) < 2:
        return "".join(items)
    return f"{', '.join(items[:-1])} and {items[-1]}"


def describe_requirement(requirement: Requirement) -> str:
    """``'1.2' (>=1.2.0,<1.3.0-0)``: what was written and what it means."""
    written = requirement.text.strip()
    return f"'{written}' ({requirement})" if written else f"'' ({requirement})"


class VersionConflictError(errors.ClassLoadError):
    """A class would inherit one class in two versions and no version suits all."""

    code = "LAG-E0701"
    murano_name = MURANO + "AmbiguousClassName"

    def __init__(self, class_name: str, inherited: str, package: str,
                 versions: t.Sequence[Version],
                 requirements: t.Sequence[tuple[RuntimePackage, Requirement]],
                 span: Span | None) -> None:
        shown = [str(v) for v in sorted(versions)]
        wanted = "; ".join(f"{p.name} {p.version} requires {describe_requirement(r)}"
                           for p, r in requirements)
        super().__init__(
            f"class {class_name} inherits {inherited} from versions {_listing(shown)} of "
            f"package {package}, and no version of {package} satisfies every "
            f"requirement: {wanted}", span)
        self.class_name = class_name
        self.inherited = inherited
        self.package = package
        self.versions = list(versions)
        self.requirements = list(requirements)


class NoPackageFound(errors.DslError):
    """No version of a package satisfies a requirement."""

    code = "LAG-E0702"
    murano_name = MURANO + "NoPackageFound"

    def __init__(self, name: str, requirement: Requirement | None,
                 available: t.Sequence[Version], required_by: RuntimePackage | None = None) -> None:
        message = f'Package "{name}" is not found'
        if requirement is not None and requirement.clauses:
            message += f" in a version matching {describe_requirement(requirement)}"
        if required_by is not None:
            message += f", required by {required_by.name} {required_by.version}"
        if available:
            message += f"; available: {', '.join(str(v) for v in sorted(available))}"
        super().__init__(message)
        self.message = message
        self.name = name
        self.requirement = requirement
        self.available = list(available)


class ClassNotVisibleError(errors.NoClassFound):
    """A class name resolves neither in the package nor in its requirements."""

    code = "LAG-E0704"

    def __init__(self, name: str, searched: t.Sequence[RuntimePackage],
                 missing: t.Sequence[tuple[str, Requirement]] = ()) -> None:
        super().__init__(name)
        where = ", ".join(f"{p.name}/{p.version}" for p in searched)
        message = f'Class "{name}" is not found in {where}'
        if missing:
            message += "; required packages not found: " + ", ".join(
                f"{n} {describe_requirement(r)}" for n, r in missing)
        self.args = (message,)
        self.message = message
        self.searched = list(searched)


class NoPackageForClassFound(errors.NoClassFound):
    """No package defines the class (in a version that fits)."""

    code = "LAG-E0703"
    murano_name = MURANO + "NoPackageForClassFound"

    def __init__(self, name: str, requirement: Requirement | None = None,
                 defining: t.Sequence[tuple[Version, str]] = ()) -> None:
        super().__init__(name)
        message = f'Package for class "{name}" is not found'
        if requirement is not None and requirement.clauses:
            message += f" in a version matching {describe_requirement(requirement)}"
            by_package: dict[str, list[str]] = {}
            for version, package in sorted(defining):
                by_package.setdefault(package, []).append(str(version))
            if by_package:
                message += "; defined in " + "; ".join(
                    f"{p} {', '.join(vs)}" for p, vs in sorted(by_package.items()))
        self.args = (message,)
        self.message = message


# -- one version per package in a hierarchy -------------------------------------------

def _constraints(cls: MuranoClass, names: t.Collection[str]
                 ) -> dict[str, list[tuple[RuntimePackage, Requirement]]]:
    """Who in the hierarchy requires which versions of the packages in ``names``."""
    found: dict[str, list[tuple[RuntimePackage, Requirement]]] = {n: [] for n in names}
    if cls.package.name in found:
        # the class itself cannot move to another version of its own package
        found[cls.package.name].append((cls.package, requirement_for(cls.package.version)))
    for child in cls.mro:
        for parent in child.parents:
            target = parent.package
            if target is child.package or target.name not in found:
                continue
            requirement = child.package.requirement_for(target.name)
            if requirement is None:
                continue
            pair = (child.package, requirement)
            if all(p is not pair[0] or r != requirement for p, r in found[target.name]):
                found[target.name].append(pair)
    return found


def _choose(cls: MuranoClass, registry: ClassRegistry, span: Span | None
            ) -> dict[str, PackageClasses]:
    present: dict[str, dict[Version, RuntimePackage]] = {}
    for member in cls.mro:
        present.setdefault(member.package.name, {})[member.package.version] = member.package
    conflicted = {name: versions for name, versions in present.items() if len(versions) > 1}
    if not conflicted:
        return {}
    constraints = _constraints(cls, conflicted)
    chosen: dict[str, PackageClasses] = {}
    for name, versions in conflicted.items():
        wanted = constraints[name]
        used = sorted({m.name for m in cls.mro if m.package.name == name})
        ordered = sorted(versions, reverse=True)
        ordered += [v for v in reversed(registry.available_versions(name)) if v not in versions]
        pick: PackageClasses | None = None
        for version in ordered:
            if not all(r.match(version) for _, r in wanted):
                continue
            holder = registry.package_version(name, version)
            if all(holder.has_class(n) for n in used):
                pick = holder
                break
        if pick is None:
            for class_name in used:
                twice = sorted({m.package.version for m in cls.mro
                                if m.name == class_name and m.package.name == name})
                if len(twice) > 1:
                    raise VersionConflictError(cls.name, class_name, name, twice, wanted, span)
            continue  # different classes of different versions: nothing is inherited twice
        if any(v != pick.package.version for v in versions):
            chosen[name] = pick
    return chosen


def _remap(cls: MuranoClass, chosen: dict[str, PackageClasses],
           registry: ClassRegistry) -> MuranoClass:
    done: dict[int, MuranoClass] = {}

    def visit(member: MuranoClass) -> MuranoClass:
        hit = done.get(id(member))
        if hit is not None:
            return hit
        target = member
        holder = chosen.get(member.package.name)
        if holder is not None and member.package is not holder.package:
            target = registry.class_of(holder, member.name)
        parents = [visit(p) for p in target.parents]
        result = target
        if any(a is not b for a, b in zip(parents, target.parents)):
            result = registry.variant(target, parents)
        done[id(member)] = result
        return result

    parents = [visit(p) for p in cls.parents]
    if all(a is b for a, b in zip(parents, cls.parents)):
        return cls
    return registry.variant(cls, parents)


def unify(cls: MuranoClass, registry: ClassRegistry, span: Span | None) -> MuranoClass:
    """``cls``, or a rebuild of it whose hierarchy has one version of each package
    wherever one version satisfies every requirement (see the module docstring)."""
    for _ in range(_MAX_ROUNDS):
        chosen = _choose(cls, registry, span)
        if not chosen:
            return cls
        cls = _remap(cls, chosen, registry)
    return cls


# -- class() contracts across versions -------------------------------------------------

def _allowed(member: MuranoClass, version_spec: t.Any,
             scope_type: MuranoClass | None) -> Requirement | None | bool:
    """The requirement ``member``'s version must meet (True: anything goes)."""
    if version_spec is not None and str(version_spec).strip():
        return _spec(str(version_spec))
    if scope_type is None:
        return True
    return scope_type.package.requirement_for(member.package.name)


_SPECS: dict[str, Requirement] = {}


def _spec(text: str) -> Requirement:
    found = _SPECS.get(text)
    if found is None:
        found = _SPECS[text] = parse_requirement(text)
    return found


def instance_class(obj_type: MuranoClass, cls: MuranoClass, version_spec: t.Any = None,
                   scope_type: MuranoClass | None = None) -> MuranoClass | None:
    """The class named like ``cls`` in ``obj_type``'s hierarchy that a ``class()``
    contract accepts, or None.

    The version must satisfy ``version_spec`` when the contract gives one, else
    the requirement of the contract's package (``scope_type``) on the class's
    package: its ``Require`` entry, or the same major version for its own
    package; a package it does not require is refused.
    """
    found: MuranoClass | None = None
    for member in obj_type.mro:
        if member.name != cls.name:
            continue
        allowed = _allowed(member, version_spec, scope_type)
        if allowed is True or (isinstance(allowed, Requirement) and allowed.match(member.version)):
            if found is not None and found != member:
                return None  # two acceptable versions: ambiguous
            found = member
    return found


def incompatibility(obj_type: MuranoClass, cls: MuranoClass, version_spec: t.Any = None,
                    scope_type: MuranoClass | None = None) -> str:
    """Why :func:`instance_class` refused: the message of the contract violation."""
    message = (f"Object of type {obj_type.name} is not compatible with requested type "
               f"{cls.name}")
    same = [m for m in obj_type.mro if m.name == cls.name]
    if not same:
        return message
    member = same[0]
    allowed = _allowed(member, version_spec, scope_type)
    shown = f"{member.package.name} {member.version}"
    if allowed is None and scope_type is not None:
        return (f"{message}: {shown} is not a package {scope_type.package.name} "
                f"{scope_type.package.version} requires")
    if isinstance(allowed, Requirement) and not allowed.match(member.version):
        who = ("the contract" if version_spec is not None and str(version_spec).strip()
               else f"{scope_type.package.name} {scope_type.package.version}"
               if scope_type is not None else "the contract")
        return f"{message}: {shown} does not satisfy {describe_requirement(allowed)} of {who}"
    return f"{message}: more than one version of {cls.name} fits"
