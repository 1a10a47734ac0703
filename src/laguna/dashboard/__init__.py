"""The web dashboard (``laguna serve``, under ``/dashboard/``): the catalog
and the environments of the caller's project, for people who do not write
packages.

It is a client of the v1 API, as murano-dashboard was of murano-api: every
page asks the API in process (:mod:`laguna.dashboard.client`) with the
caller's own token, so that the API's scoping, limits and errors are the
dashboard's too, and the dashboard reads no store of its own. Pages are
rendered on the server (Jinja2, autoescaped) with a little JavaScript of
laguna's own; every asset is served by laguna (no CDN), so it works on a
machine with no network beyond the server. docs/DASHBOARD.md says why.
"""
