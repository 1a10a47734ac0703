"""Statistics: instance statistics of an environment (raw and aggregated), for
billing, and ``/stats``, the request statistics of the service.

The original left instance statistics unchecked for ownership (its code said
so, as work to do); laguna answers 404 or 403 as for the environment itself.
"""

from __future__ import annotations

import typing as t

from fastapi import APIRouter

from laguna.api.deps import Caller, Reader, State
from laguna.api.environments import check_environment, utcnow
from laguna.api.stats import history_view
from laguna.store import instances as store
from laguna.store.apistats import taken_over_stats

router = APIRouter(tags=["statistics"])


@router.get("/environments/{environment_id}/instance-statistics/raw",
            summary="Every instance and application the environment has had")
def raw_statistics(environment_id: str, caller: Caller,
                   session: Reader) -> list[dict[str, t.Any]]:
    check_environment(session, caller, environment_id)
    return store.raw_stats(session, environment_id, utcnow())


@router.get("/environments/{environment_id}/instance-statistics/raw/{instance_id}",
            summary="The statistics of one instance or application")
def instance_statistics(environment_id: str, instance_id: str, caller: Caller,
                        session: Reader) -> list[dict[str, t.Any]]:
    check_environment(session, caller, environment_id)
    return store.raw_stats(session, environment_id, utcnow(), instance_id)


@router.get("/environments/{environment_id}/instance-statistics/aggregated",
            summary="Count and total lifetime per kind (200 instances, 100 applications)")
def aggregated_statistics(environment_id: str, caller: Caller,
                          session: Reader) -> list[dict[str, int]]:
    check_environment(session, caller, environment_id)
    return store.aggregated_stats(session, environment_id, utcnow())


@router.get("/stats", summary="Request statistics of this API host (and, for admins, "
                             "the original's hosts, taken over)")
def request_statistics(caller: Caller, state: State,
                       session: Reader) -> list[dict[str, t.Any]]:
    # one entry per API host, as the original's table held; this process is one host,
    # after the original's hosts' rows if a takeover brought them (their ids kept:
    # this host's follows them). Another project's counts are its own business:
    # admins alone see them, and the original's rows, which count every tenant.
    history = taken_over_stats(session)
    row_id = max((record.id for record in history), default=0) + 1
    if not caller.is_admin:
        return [state.stats.snapshot(caller.project_id, row_id)]
    return [*map(history_view, history), state.stats.snapshot(None, row_id)]
