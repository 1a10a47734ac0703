"""Functions answered by the host running the engine: ``config`` and ``decryptData``.

The original engine read ``config()`` from its own configuration (oslo.config)
and offered it to the core library (package ``io.murano``) only; it decrypted
``decryptData()`` references with a key manager (Barbican through castellan).
laguna has neither: the host hands the engine a :class:`Host` with its
settings and a :class:`Decryptor`. The default host has no settings and a
decryptor that refuses (:class:`NoDecryptor`), so a package never sees a
secret nobody configured.
"""

from __future__ import annotations

import dataclasses
import typing as t
from collections import abc

from yaql.language import exceptions as yaql_exceptions
from yaql.language import specs, yaqltypes

from laguna.lang import errors
from laguna.lang.dispatch import freeze

#: the only package whose code may call ``config()``, as in the original engine
CONFIG_PACKAGE = "io.murano"
#: the group ``config(setting)`` reads, oslo.config's name for it
DEFAULT_GROUP = "DEFAULT"


class Decryptor(t.Protocol):
    """Turns what ``decryptData()`` is given (a secret's reference) into the secret."""

    def decrypt(self, value: str) -> str: ...


class NoDecryptor:
    """The default: no key manager is configured, every call fails."""

    def decrypt(self, value: str) -> str:
        raise errors.DecryptionUnavailable(
            "decryptData() needs a key manager, and none is configured")


@dataclasses.dataclass(frozen=True)
class MappingDecryptor:
    """Secrets kept by the host in a mapping of reference -> secret (tests, local runs)."""

    secrets: abc.Mapping[str, str]

    def decrypt(self, value: str) -> str:
        try:
            return self.secrets[value]
        except KeyError:
            raise errors.SecretNotFound(f"no secret is stored under {value!r}") from None


@dataclasses.dataclass(frozen=True)
class Host:
    """What the host offers MuranoPL code through ``config()`` and ``decryptData()``.

    ``settings`` maps a setting name to its value, or a group name to a mapping
    of the group's settings; ``config(setting)`` reads the group ``DEFAULT``
    when it exists, else the top level.
    """

    settings: abc.Mapping[str, t.Any] = dataclasses.field(default_factory=dict)
    decryptor: Decryptor = dataclasses.field(default_factory=NoDecryptor)


def _host(scope: t.Any) -> Host:
    frame = getattr(scope, "frame", None)
    host = getattr(frame.executor, "host", None) if frame is not None else None
    return host if isinstance(host, Host) else Host()


def _setting(scope: t.Any, group: str | None, setting: str) -> t.Any:
    frame = getattr(scope, "frame", None)
    if frame is None or frame.cls.package.name != CONFIG_PACKAGE:
        # other packages never had config(): it is not a function for them
        raise yaql_exceptions.NoFunctionRegisteredException("config")
    settings = _host(scope).settings
    found = settings.get(DEFAULT_GROUP if group is None else group)
    if isinstance(found, abc.Mapping):
        values: abc.Mapping[str, t.Any] = found
    elif group is None:
        values = settings
    else:
        raise errors.NoSuchSetting(setting, group)
    if setting not in values:
        raise errors.NoSuchSetting(setting, group or DEFAULT_GROUP)
    return freeze(values[setting])


@specs.parameter("group", yaqltypes.String())
@specs.parameter("setting", yaqltypes.String())
@specs.inject("scope", yaqltypes.Context())
def config(scope: t.Any, group: str, setting: str) -> t.Any:
    """:yaql:config

    The value of the host's setting ``setting`` in group ``group``. Only code
    of the core library (``io.murano``) may call it.

    :signature: config(group, setting)
    """
    return _setting(scope, group, setting)


@specs.parameter("setting", yaqltypes.String())
@specs.inject("scope", yaqltypes.Context())
@specs.name("config")
def config_default(scope: t.Any, setting: str) -> t.Any:
    """:yaql:config

    The value of the host's setting ``setting`` (group ``DEFAULT``). Only code
    of the core library (``io.murano``) may call it.

    :signature: config(setting)
    """
    return _setting(scope, None, setting)


@specs.parameter("value", yaqltypes.String())
@specs.inject("scope", yaqltypes.Context())
@specs.name("decryptData")
@specs.extension_method
def decrypt_data(scope: t.Any, value: str) -> str:
    """:yaql:decryptData

    The secret a reference stands for, from the host's key manager. Without
    one, raises ``castellan.common.exception.AuthTypeInvalidError`` (the
    original engine's error when its key manager was not configured).

    :signature: decryptData(value) or value.decryptData()
    """
    return _host(scope).decryptor.decrypt(value)


def register(context: t.Any) -> None:
    context.register_function(config)
    context.register_function(config_default)
    context.register_function(decrypt_data)
