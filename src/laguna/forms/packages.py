"""The ui.yaml of a package (laguna.packages), read."""

from __future__ import annotations

from laguna.forms.definition import UiDefinition, read
from laguna.forms.errors import FormError
from laguna.packages.package import Package


def package_definition(package: Package, origin: str) -> UiDefinition:
    """The dynamic UI of ``package`` (found at ``origin``, for messages); a
    FormError when it has none."""
    text = package.ui_definition()
    source = f"{origin.rstrip('/')}/{package.ui_path}"
    if text is None:
        raise FormError(f"package {package.name} has no {package.ui_path}: no forms to fill")
    return read(text, source)
