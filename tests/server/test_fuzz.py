"""A schema fuzz of the server's own OpenAPI document: whatever schemathesis
sends, no operation answers 500, every response (errors included) matches the
schema the document declares for its status, and every error uses the envelope."""

from __future__ import annotations

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from schemathesis.checks import response_schema_conformance

from tests.server.conftest import ADMIN_KEY


@pytest.fixture(scope="module")
def fuzz_server(tmp_path_factory):
    from recall_engine import RecallEngine
    from recall_engine.server import ServerSettings
    from recall_engine.testing import DeterministicEmbedder
    from tests.server.conftest import start_server

    engine = RecallEngine(tmp_path_factory.mktemp("fuzz"), embedder=DeterministicEmbedder())
    live = start_server(engine, ServerSettings(rate=0))
    yield live
    live.stop()


@pytest.mark.parametrize(
    "examples", [pytest.param(60, id="quick"), pytest.param(600, id="long", marks=pytest.mark.slow)]
)
def test_no_operation_answers_500(fuzz_server, examples):
    # The document is built on its first request: a busy machine needs longer than
    # schemathesis's default 10 s (a liveness bound, like the calls' 30 s below).
    spec = schemathesis.openapi.from_url(f"{fuzz_server.base_url}/openapi.json", timeout=120)
    operations = [result.ok() for result in spec.get_all_operations()]
    assert len(operations) >= 25
    headers = {"Authorization": f"Bearer {ADMIN_KEY}"}
    # Each operation gets its share of the examples: one strategy over all of them
    # left some operations unfuzzed in a run (12 of 43 seen once), at random.
    per_operation = max(2, examples // len(operations))
    seen: set[str] = set()

    for operation in operations:

        @settings(
            max_examples=per_operation,
            deadline=None,
            suppress_health_check=list(HealthCheck),
            database=None,
        )
        @given(case=operation.as_strategy())
        def check(case) -> None:
            seen.add(f"{case.method} {case.path}")
            response = case.call(base_url=fuzz_server.base_url, headers=headers, timeout=30)
            assert response.status_code != 500, (
                f"{case.method} {case.path} -> {response.status_code}: {response.text[:300]}"
            )
            case.validate_response(response, checks=[response_schema_conformance], headers=headers)
            if response.status_code >= 400:
                detail = response.json()["detail"]
                assert detail["success"] is False and detail["error_code"]

        check()
    assert len(seen) == len(operations)
