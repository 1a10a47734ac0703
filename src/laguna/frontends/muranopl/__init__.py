"""The MuranoPL front end of the deployment layer (see docs/MURANOPL_DEPLOY.md).

===================  ==============================================================
module               concept
===================  ==============================================================
``model``            recognising and reading object models; wrapping applications
``packages``         the packages of a run: ``-l`` entries and stored packages
``services``         DeploymentServices over a Cloud and the hosts' agents
``redeploy``         the difference between the stored model and a new one
``errors``           error kinds and messages
``actions``          the actions a stored model offers (status, checking an action)
``frontend``         the Frontend: prepare, deploy, action, undeploy, actions
``static_actions``   static actions called by class name (the API's ``POST /v1/actions``)
===================  ==============================================================

The cloud and agents of a run come from the host layer
(:func:`laguna.hosts.factory.host_resources`), as they do for every front end.
"""

from __future__ import annotations

from laguna.frontends.muranopl.frontend import LANGUAGE, MuranoPlFrontend

__all__ = ["LANGUAGE", "MuranoPlFrontend"]
