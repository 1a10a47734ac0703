"""The local cloud: servers become hosts on this machine (docs/CLOUD.md)."""

from laguna.cloud.local.driver import LocalCloud

__all__ = ["LocalCloud"]
