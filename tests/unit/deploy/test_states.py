"""State-transition rules of environments."""

from __future__ import annotations

import pytest

from laguna.deploy.errors import Refused
from laguna.deploy.states import (
    ADMISSION,
    EnvironmentState,
    Operation,
    Proposal,
    admit,
    finished,
)

S = EnvironmentState


def proposal(state: EnvironmentState, operation: Operation, acquired_by: str | None = None,
             deployed: bool = True) -> Proposal:
    return Proposal("shop", state, operation, acquired_by, deployed)


def test_rules_are_asked_in_order() -> None:
    assert [type(rule).__name__ for rule in ADMISSION] == [
        "OneOperationAtATime", "TakenOverStaysPut", "ActionNeedsADeployment",
        "WatchNeedsADeployment", "UndeployNeedsSomethingDeployed", "OneLanguagePerEnvironment"]


@pytest.mark.parametrize("operation", list(Operation))
def test_a_held_environment_refuses_every_operation(operation: Operation) -> None:
    with pytest.raises(Refused, match=r"^error\[environment_busy\]: environment 'shop' is "
                                      r"busy: deployment d1 is running \(deploying\)$"
                       ) as caught:
        admit(proposal(S.DEPLOYING, operation, acquired_by="d1"))
    assert caught.value.kind == "environment_busy"


@pytest.mark.parametrize("operation", list(Operation))
def test_a_taken_over_environment_refuses_every_operation(operation: Operation) -> None:
    with pytest.raises(Refused, match=r"^error\[cloud_unavailable\]: environment 'shop' was "
                                      r"deployed by Murano on OpenStack; laguna has no OpenStack "
                                      r"cloud driver yet: abandon or delete it \(laguna forget "
                                      r"shop\)$") as caught:
        admit(proposal(S.TAKEN_OVER, operation))
    assert caught.value.kind == "cloud_unavailable"


@pytest.mark.parametrize("state", [S.PENDING, S.UNDEPLOYED])
def test_nothing_to_act_on_or_undeploy(state: EnvironmentState) -> None:
    for operation in (Operation.ACTION, Operation.UNDEPLOY):
        with pytest.raises(Refused) as caught:
            admit(proposal(state, operation))
        assert caught.value.kind == "not_deployed"


@pytest.mark.parametrize("state", [S.READY, S.DEPLOY_FAILURE, S.DELETE_FAILURE])
def test_a_failed_or_ready_environment_can_be_deployed_and_undeployed(
        state: EnvironmentState) -> None:
    admit(proposal(state, Operation.DEPLOY))
    admit(proposal(state, Operation.UNDEPLOY, deployed=False))


@pytest.mark.parametrize("state", [S.PENDING, S.UNDEPLOYED])
def test_nothing_to_watch(state: EnvironmentState) -> None:
    with pytest.raises(Refused, match=r"^error\[not_deployed\]: environment 'shop' has "
                                      r"nothing deployed to watch$"):
        admit(proposal(state, Operation.WATCH))


def test_a_failed_environment_is_watched() -> None:
    admit(proposal(S.DEPLOY_FAILURE, Operation.WATCH))
    with pytest.raises(Refused):
        admit(proposal(S.DEPLOY_FAILURE, Operation.WATCH, deployed=False))


def test_action_needs_a_stored_model() -> None:
    with pytest.raises(Refused):
        admit(proposal(S.DEPLOY_FAILURE, Operation.ACTION, deployed=False))
    admit(proposal(S.DEPLOY_FAILURE, Operation.ACTION))


def test_finish_states() -> None:
    # a watch pass keeps the state the environment had (the service does not ask)
    assert [(op.value, ok, finished(op, ok).value) for op in Operation
            if op is not Operation.WATCH for ok in (True, False)] == [
        ("deploy", True, "ready"), ("deploy", False, "deploy failure"),
        ("action", True, "ready"), ("action", False, "deploy failure"),
        ("undeploy", True, "undeployed"), ("undeploy", False, "delete failure")]


def test_another_language_cannot_redeploy_a_deployed_model() -> None:
    mixed = Proposal("shop", S.READY, Operation.DEPLOY, None, True, "muranopl", "tosca")
    with pytest.raises(Refused, match=r"^error\[language_mismatch\]: environment 'shop' "
                                      r"holds a muranopl deployment; undeploy it before "
                                      r"deploying tosca$"):
        admit(mixed)
    admit(Proposal("shop", S.UNDEPLOYED, Operation.DEPLOY, None, False, "muranopl", "tosca"))
