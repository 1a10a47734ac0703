"""Integration of the `yaql` library: engines per format version, parsing with a cache."""

import collections.abc  # noqa: F401  (yaql reads collections.abc without importing it)
