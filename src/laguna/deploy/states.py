"""Environment and deployment states, and the rules that move between them.

Each operation (deploy, action, undeploy) goes through three steps:

1. **admission**: the rules of :data:`ADMISSION`, in order, may refuse it
   (another operation holds the environment; nothing is deployed to act on);
2. **start**: the environment takes the running state of the operation
   (:data:`RUNNING`) and is acquired by the new deployment;
3. **finish**: the first rule of :data:`FINISH` that matches the operation and
   its success gives the environment's new state.

An operation whose process died (see :mod:`laguna.deploy.owner`) finishes as
failed when the next command finds it, so the environment becomes deployable
and undeployable again.

::

    pending ──deploy──> deploying ──ok──> ready ──action──> deploying ──> ready
    ready / deploy failure ──watch──> (unchanged: what it finds shows in the components)
                            └──fail──> deploy failure ──deploy/undeploy──> ...
    ready / deploy failure / delete failure ──undeploy──> deleting ──ok──> undeployed
                                                              └──fail──> delete failure
"""

from __future__ import annotations

import abc
import dataclasses
import enum
import typing as t

from laguna.deploy import errors


class EnvironmentState(str, enum.Enum):
    """An environment's ``status`` (Murano's names, plus ``undeployed``)."""

    PENDING = "pending"
    READY = "ready"
    DEPLOYING = "deploying"
    DEPLOY_FAILURE = "deploy failure"
    DELETING = "deleting"
    DELETE_FAILURE = "delete failure"
    UNDEPLOYED = "undeployed"
    #: imported by ``laguna takeover`` from a Murano that deployed it on OpenStack:
    #: readable, forgettable, never operated on (no cloud driver owns its resources)
    TAKEN_OVER = "taken over"


class DeploymentState(str, enum.Enum):
    RUNNING = "running"
    SUCCESS = "success"
    FAILURE = "failure"


class Operation(str, enum.Enum):
    DEPLOY = "deploy"
    ACTION = "action"
    UNDEPLOY = "undeploy"
    #: one pass of watching a deployed environment (its checks and policies,
    #: :class:`laguna.deploy.frontend.Watcher`): the environment keeps its state
    WATCH = "watch"


@dataclasses.dataclass(frozen=True)
class Proposal:
    """An operation proposed on an environment, with what the rules look at."""

    environment: str
    state: EnvironmentState
    operation: Operation
    #: the id of the deployment holding the environment, if any (after recovery)
    acquired_by: str | None
    #: whether the environment has a stored model
    deployed: bool
    #: the language of what is deployed, and of the blueprint proposed (deploy only)
    language: str | None = None
    proposed_language: str | None = None
    #: the environment's project, when not the command line's own (``local``)
    project: str | None = None


class AdmissionRule(abc.ABC):
    """One reason to refuse an operation; applies to the listed operations."""

    OPERATIONS: t.ClassVar[frozenset[Operation]] = frozenset(Operation)

    def applies(self, proposal: Proposal) -> bool:
        return proposal.operation in self.OPERATIONS

    @abc.abstractmethod
    def check(self, proposal: Proposal) -> None:
        """Raise :class:`~laguna.deploy.errors.Refused` to refuse the proposal."""


class OneOperationAtATime(AdmissionRule):
    def check(self, proposal: Proposal) -> None:
        if proposal.acquired_by is not None:
            raise errors.Refused(
                errors.ENVIRONMENT_BUSY,
                f"environment {proposal.environment!r} is busy: deployment "
                f"{proposal.acquired_by} is running ({proposal.state.value})")


class ActionNeedsADeployment(AdmissionRule):
    OPERATIONS = frozenset({Operation.ACTION})

    def check(self, proposal: Proposal) -> None:
        if not proposal.deployed or proposal.state in (
                EnvironmentState.PENDING, EnvironmentState.UNDEPLOYED):
            raise errors.Refused(
                errors.NOT_DEPLOYED,
                f"environment {proposal.environment!r} has nothing deployed to run an "
                "action on")


class WatchNeedsADeployment(AdmissionRule):
    OPERATIONS = frozenset({Operation.WATCH})

    def check(self, proposal: Proposal) -> None:
        if not proposal.deployed or proposal.state in (
                EnvironmentState.PENDING, EnvironmentState.UNDEPLOYED):
            raise errors.Refused(
                errors.NOT_DEPLOYED,
                f"environment {proposal.environment!r} has nothing deployed to watch")


class UndeployNeedsSomethingDeployed(AdmissionRule):
    OPERATIONS = frozenset({Operation.UNDEPLOY})

    def check(self, proposal: Proposal) -> None:
        if proposal.state in (EnvironmentState.PENDING, EnvironmentState.UNDEPLOYED):
            raise errors.Refused(
                errors.NOT_DEPLOYED,
                f"environment {proposal.environment!r} is {proposal.state.value}: "
                "nothing to undeploy")


class OneLanguagePerEnvironment(AdmissionRule):
    """A model deployed in one language cannot be redeployed by another's front end
    (it could not compute the difference); undeploy first."""

    OPERATIONS = frozenset({Operation.DEPLOY})

    def check(self, proposal: Proposal) -> None:
        if (proposal.deployed and proposal.language is not None
                and proposal.proposed_language is not None
                and proposal.language != proposal.proposed_language):
            raise errors.Refused(
                errors.LANGUAGE_MISMATCH,
                f"environment {proposal.environment!r} holds a {proposal.language} "
                f"deployment; undeploy it before deploying {proposal.proposed_language}")


class TakenOverStaysPut(AdmissionRule):
    """An environment taken over from Murano lives on OpenStack: no operation can
    reach its resources until a cloud driver owns them (docs/TAKEOVER.md)."""

    def check(self, proposal: Proposal) -> None:
        if proposal.state is EnvironmentState.TAKEN_OVER:
            raise errors.Refused(
                errors.CLOUD_UNAVAILABLE,
                f"environment {proposal.environment!r} was deployed by Murano on OpenStack; "
                "laguna has no OpenStack cloud driver yet: abandon or delete it "
                f"(laguna forget {proposal.environment}"
                f"{f' --project {proposal.project}' if proposal.project else ''})")


#: the admission rules, in the order they are asked
ADMISSION: tuple[AdmissionRule, ...] = (
    OneOperationAtATime(),
    TakenOverStaysPut(),
    ActionNeedsADeployment(),
    WatchNeedsADeployment(),
    UndeployNeedsSomethingDeployed(),
    OneLanguagePerEnvironment(),
)


def admit(proposal: Proposal, rules: t.Sequence[AdmissionRule] = ADMISSION) -> None:
    """Raise the first refusal of ``rules``; return when every rule lets it pass."""
    for rule in rules:
        if rule.applies(proposal):
            rule.check(proposal)


#: the state an environment is in while an operation runs (a watch pass leaves
#: it in the state it had, before and after: :func:`finished` is not asked)
RUNNING: t.Mapping[Operation, EnvironmentState] = {
    Operation.DEPLOY: EnvironmentState.DEPLOYING,
    Operation.ACTION: EnvironmentState.DEPLOYING,
    Operation.UNDEPLOY: EnvironmentState.DELETING,
}


@dataclasses.dataclass(frozen=True)
class FinishRule:
    """An operation that ended (``ok`` or not) leaves the environment in ``to``."""

    operation: Operation
    ok: bool
    to: EnvironmentState

    def applies(self, operation: Operation, ok: bool) -> bool:
        return operation is self.operation and ok is self.ok


FINISH: tuple[FinishRule, ...] = (
    FinishRule(Operation.DEPLOY, True, EnvironmentState.READY),
    FinishRule(Operation.DEPLOY, False, EnvironmentState.DEPLOY_FAILURE),
    FinishRule(Operation.ACTION, True, EnvironmentState.READY),
    FinishRule(Operation.ACTION, False, EnvironmentState.DEPLOY_FAILURE),
    FinishRule(Operation.UNDEPLOY, True, EnvironmentState.UNDEPLOYED),
    FinishRule(Operation.UNDEPLOY, False, EnvironmentState.DELETE_FAILURE),
)


def finished(operation: Operation, ok: bool,
             rules: t.Sequence[FinishRule] = FINISH) -> EnvironmentState:
    """The environment's state after ``operation`` ended."""
    for rule in rules:
        if rule.applies(operation, ok):
            return rule.to
    raise LookupError(f"no finish rule for {operation.value} ok={ok}")


#: component states that name work under way (MuranoPL's ``deploying``, TOSCA's
#: lifecycle steps): a component left in one by a run whose process died is
#: ``interrupted`` once the run is found dead (``Service._recover``)
UNFINISHED_COMPONENT_STATES = frozenset({
    "deploying", "destroying", "creating", "configuring", "starting", "stopping",
    "deleting"})
INTERRUPTED_COMPONENT = "interrupted"
