"""The v1 REST API of the original system, served by FastAPI (``laguna serve``).

The API is a thin layer: routes check the request and the caller's project,
read and write the store, and queue work (deploys, actions, deletions) for the
engine's workers (:mod:`laguna.engine.handlers`), which run the deployment layer's
:class:`~laguna.deploy.service.Service`. See docs/API.md.
"""
