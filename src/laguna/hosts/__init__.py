"""The host layer: how every blueprint language reaches a server of a cloud.

One way, for MuranoPL, TOSCA and assembly descriptors alike:

``resources``   :class:`Resources` (a :class:`~laguna.cloud.base.Cloud` and an
                :data:`AgentFactory`, the transport to a host's agent) and the
                factories of real and recording agents
``plans``       :class:`PlanBuilder`, the one builder of v2 execution plans: from a
                MuranoPL template and its package's files, or from a script
``run``         :class:`Machine` (a host and its agent), :func:`run_script`,
                :func:`put_file`
``servers``     :class:`ServerStack`: plain servers (``OS::Nova::Server``) of one
                stack, made, found and removed by name
``choice``      which cloud an environment uses (:class:`CloudRequest`,
                :class:`CloudChoice`), kept per environment in the cloud's state
                folder; a switch is refused while the environment holds stacks
``factory``     :func:`open_resources` for (kind, options, dry run), each cloud
                driver imported when first used; :func:`host_resources`, the
                deployment layer's ResourcesFactory

It stands on laguna.cloud and laguna.agent and knows nothing of the front ends
above it, nor of the deployment layer (which imports it). Import from the
modules: this package imports nothing, as the deployment layer's light
commands import :mod:`.resources` and :mod:`.choice`.
"""
