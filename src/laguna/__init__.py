"""laguna: an application catalog and deployment engine, successor of OpenStack Murano."""

# yaql 3.x reads collections.abc without importing it; make sure it is loaded
# before any module imports yaql.
import collections.abc  # noqa: F401

__version__ = "0.1.0"

__all__ = ["__version__"]
