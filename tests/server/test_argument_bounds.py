"""Argument bounds reach the HTTP API and the remote client: an argument over its
bound (``core.bounds``) is a 400 naming it and the limit, and the remote client
raises the embedded engine's ``InvalidInputError``."""

from __future__ import annotations

import pytest

from recall_engine import RecallEngine
from recall_engine.core.bounds import MAX_FEEDBACK_CHARS, MAX_NAMES, MAX_SYSTEM_PROMPT_CHARS
from recall_engine.core.errors import InvalidInputError
from tests.server.conftest import ADMIN_KEY, error_of


def _refused(response, what: str, limit: int) -> None:
    assert response.status_code == 400, response.text
    message = error_of(response)["message"]
    assert message.startswith(f"{what} holds ") and f"at most {limit:,}" in message, message
    assert len(message) < 400


def test_recall_options_over_their_bounds_are_400(live):
    with live.client() as client:
        body = {"query": "tea", "system_prompt": "p" * (MAX_SYSTEM_PROMPT_CHARS + 1)}
        _refused(client.post("/api/v1/recall", json=body), "system_prompt", MAX_SYSTEM_PROMPT_CHARS)
        body = {"query": "tea", "node_name": [f"n{i}" for i in range(MAX_NAMES + 1)]}
        _refused(client.post("/api/v1/recall", json=body), "node_name", MAX_NAMES)


async def test_the_remote_client_gets_the_feedback_bound(live):
    async with RecallEngine.connect(live.base_url, api_key=ADMIN_KEY) as remote:
        with pytest.raises(
            InvalidInputError, match=f"text holds .* at most {MAX_FEEDBACK_CHARS:,}"
        ):
            await remote.add_feedback("s1", "qa", score=3, text="t" * (MAX_FEEDBACK_CHARS + 1))
