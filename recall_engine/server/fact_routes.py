"""``GET /api/v1/facts``: what memory holds about a subject, with time, over HTTP.

The same call as ``RecallEngine.facts`` (and ``RemoteRecallEngine.facts``, which
uses this route): a subject's facts with ``valid_from``, ``valid_until``, what
superseded them and whether they are current. The key must be allowed on the
tenant it names, as for ``/api/v1/recall``. A query parameter it does not take is
refused (422): a misspelled ``as_of`` would answer the current facts.
"""

from __future__ import annotations

from collections.abc import Callable

from fastapi import APIRouter, Depends, Query

from recall_engine.core.facts import Fact
from recall_engine.server.auth import Authenticator, Principal
from recall_engine.server.errors import ERROR_RESPONSES, ApiError
from recall_engine.server.port import EnginePort
from recall_engine.server.request_fields import known_query


def facts_router(
    engine: EnginePort,
    auth: Authenticator,
    store_of: Callable[[EnginePort, str | None, Principal], str],
) -> APIRouter:
    """The facts route over ``engine``; ``store_of`` maps a request's tenant id to
    its store once the key may act on it (the app's own)."""
    router = APIRouter(responses=ERROR_RESPONSES)

    @router.get("/api/v1/facts", tags=["engine"])
    async def facts(
        who: Principal = Depends(auth),
        subject: str = Query(max_length=1000, description="Whose facts: a name or alias."),
        as_of: str | None = Query(
            default=None, max_length=64, description="ISO 8601: only the facts valid then."
        ),
        history: bool = Query(default=True, description="false: only current facts."),
        dataset_name: str | None = Query(default=None, max_length=200),
        datasets: list[str] | None = Query(default=None, max_length=100),
        user: str | None = Query(default=None, max_length=200),
        tenant_id: str | None = Query(default=None, max_length=200),
        _: None = Depends(known_query),
    ) -> list[Fact]:
        if dataset_name is not None and datasets is not None:
            raise ApiError(400, "INVALID_PARAMETERS", "Pass dataset_name or datasets, not both.")
        return await engine.facts(
            subject,
            as_of=as_of,
            history=history,
            dataset_name=dataset_name,
            datasets=datasets,
            user=user,
            tenant_id=store_of(engine, tenant_id, who),
        )

    return router
