"""The TOSCA Simple Profile 1.3 front end (see docs/TOSCA.md).

===================  ==============================================================
module               concept
===================  ==============================================================
``problems``         error kinds; every problem a validation finds, with its place
``grammar``          the keynames of each entity, as data
``values``           scalar units, versions, timestamps, constraint operators
``documents``        CSAR entries and imports
``csar``             CSARs as catalog packages; ``catalog:NAME`` imports
``substitution``     substituted nodes composed with their inner topology
``types``            the type registry (normative types in ``types/*.yaml``)
``functions``        intrinsic functions: static checks and evaluation
``topology``         validation of a whole blueprint -> ``model.Topology``
``model``            the topology the runtime deploys
``runtime``          deploying and undeploying a topology (threads, sh scripts)
``frontend``         the Frontend: prepare, deploy, undeploy
===================  ==============================================================
"""
