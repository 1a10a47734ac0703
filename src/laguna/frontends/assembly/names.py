"""Naming rules of descriptors and instances (spec page, section 4, item 13)."""

from __future__ import annotations

import re

KINDS = ("assembly", "resource")
_NAME = re.compile(r"^[A-Za-z](?:[A-Za-z0-9_.-]*[A-Za-z0-9])?$")
_VERSION = re.compile(r"^\d+(?:\.\d+)*$")


def descriptor_name_problem(text: str) -> str | None:
    """Why ``text`` is not a valid ``type::name::version``; None when it is."""
    parts = text.split("::")
    if len(parts) != 3:
        return f"descriptor name {text!r} is not type::name::version"
    kind, name, version = parts
    if kind not in KINDS:
        return f"descriptor type {kind!r} of {text!r} is not assembly or resource"
    if len(name) > 50:
        return f"descriptor name {name!r} is longer than 50 characters"
    if not _NAME.match(name) or "__" in name or "--" in name:
        return (f"descriptor name {name!r} must start with a letter, end with a letter or "
                "digit, and hold only letters, digits, '.', and non-consecutive '_' and '-'")
    if not _VERSION.match(version):
        return f"descriptor version {version!r} is not dot-separated numbers"
    return None


def given_name_problem(what: str, name: str) -> str | None:
    """Why ``name``, which a descriptor gives to one of its properties, components,
    references, relationships, data types, capabilities or requirements, breaks the
    seed's rule for such names ("No spaces. Minimum length of one alphanumeric
    character. No periods (.)"); None when it keeps it. ``.`` would make
    ``${a.b}`` ambiguous, and the instance names built from components hold no space."""
    if any(c.isspace() for c in name):
        return f"{what} name {name!r} contains a space"
    if "." in name:
        return f"{what} name {name!r} contains '.'"
    if not any(c.isalnum() for c in name):
        return f"{what} name {name!r} has no letter or digit"
    return None


def instance_name_problem(name: str) -> str | None:
    """Why ``name`` cannot name an assembly instance; None when it can."""
    if not name:
        return "an assembly instance name cannot be empty"
    if any(c.isspace() for c in name):
        return f"assembly instance name {name!r} contains a space"
    if "__" in name:
        return f"assembly instance name {name!r} contains '__'"
    if name[0].isdigit():
        return f"assembly instance name {name!r} starts with a digit"
    return None


def split(text: str) -> tuple[str, str, str]:
    """``(kind, name, version)`` of a descriptor reference (the version may be a range)."""
    kind, _, rest = text.partition("::")
    name, _, version = rest.partition("::")
    return kind, name, version


def env_name(name: str) -> str:
    """A property name as it appears in a ``PROP_`` variable."""
    return re.sub(r"[^A-Za-z0-9_]", "_", name)
