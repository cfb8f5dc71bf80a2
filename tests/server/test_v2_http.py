"""The v2 paths over plain HTTP (no SDK): v2's error shape for every refusal the
app makes (validation, auth, rate limit, body limit), and the scope's two names."""

from __future__ import annotations

from typing import Any

import httpx

from tests.server.conftest import KEYS, LiveServer


def v2_error(response: httpx.Response) -> dict[str, Any]:
    """The v2 error body, checked for shape; its ``error``."""
    body = response.json()
    assert body["success"] is False and body["meta"]["api_version"] == "2", body
    assert body["meta"]["request_id"] and body["detail"]["error_code"] == body["error"]["code"]
    assert response.headers["api-version"] == "2"
    return dict(body["error"])


def test_bad_input_is_a_v2_400_naming_the_field(live: LiveServer) -> None:
    with live.client(KEYS["acme"]) as http:
        http.post("/databases", json={"database": "acme"}).raise_for_status()
        missing = http.post("/query", json={"query": "x"})
        assert missing.status_code == 400 and "database" in v2_error(missing)["message"]
        bad = http.post("/query", json={"database": "acme", "query": "x", "mode": "deep"})
        assert bad.status_code == 400 and "mode" in v2_error(bad)["message"]
        both = http.post("/query", json={"database": "acme", "tenant_id": "globex", "query": "x"})
        assert both.status_code == 400 and "disagree" in v2_error(both)["message"]
        when = http.post("/query", json={"database": "acme", "query": "x", "temporal_now": "soon"})
        assert when.status_code == 400 and "temporal_now" in v2_error(when)["message"]
        for mode in ("auto", "thinking", "fast"):  # out of range whether or not the mode uses it
            alpha = http.post(
                "/query", json={"database": "acme", "query": "x", "alpha": 3, "mode": mode}
            )
            assert alpha.status_code == 400 and "alpha" in v2_error(alpha)["message"], mode
        for other in ({"collection": "team"}, {"sub_tenant_ids": ["team"]}):
            two = http.post(
                "/query", json={"database": "acme", "query": "x", "collections": ["a"]} | other
            )
            assert two.status_code == 400 and "collections" in v2_error(two)["message"], other
        ingest = http.post("/context/ingest", json={"database": "acme", "memories": "[1]"})
        assert ingest.status_code == 400 and "memories" in v2_error(ingest)["message"]
        listed = http.post("/context/list", json={"database": "acme"}).json()
    assert listed["data"]["sources"] == []  # nothing was written by the refused calls


def test_auth_rate_and_body_limits_answer_in_v2_shape(make_server) -> None:
    live = make_server(rate=0.01, burst=1, max_body_bytes=2000)
    with httpx.Client(base_url=live.base_url, timeout=60) as anonymous:
        denied = anonymous.post("/query", json={"database": "acme", "query": "x"})
    assert denied.status_code == 401 and v2_error(denied)["code"] == "UNAUTHORIZED"
    with live.client(KEYS["acme"]) as http:
        large = http.post("/context/ingest", json={"database": "acme", "memories": "x" * 4000})
        assert large.status_code == 413 and v2_error(large)["code"] == "PAYLOAD_TOO_LARGE"
        http.get("/databases")
        limited = http.get("/databases")
    assert limited.status_code == 429 and v2_error(limited)["code"] == "RATE_LIMITED"
    assert limited.headers["retry-after"]


def test_v1_paths_keep_v1s_envelope(live: LiveServer) -> None:
    with live.client(KEYS["acme"]) as http:
        v1 = http.post("/recall/full_recall", json={"tenant_id": "acme", "query": "x"})
    assert v1.status_code == 404 and set(v1.json()) == {"detail"}


def test_ingest_scope_that_is_not_a_string_is_a_400_not_a_500(live: LiveServer) -> None:
    memories = '[{"id": "m1", "text": "Ann likes tea"}]'
    with live.client() as admin:  # an admin key passes the tenant check with any value
        admin.post("/databases", json={"database": "acme"}).raise_for_status()
        for field, value in [
            ("database", ["acme"]),
            ("tenant_id", {"id": "acme"}),
            ("database", 5),
            ("collection", ["c1"]),
        ]:
            body = {"database": "acme", "type": "memory", "memories": memories, field: value}
            if field == "tenant_id":
                del body["database"]
            refused = admin.post("/context/ingest", json=body)
            assert refused.status_code == 400, refused.text
            assert v2_error(refused)["message"].startswith(f"{field} must be a string"), field
        listed = admin.post("/context/list", json={"database": "acme", "type": "memory"}).json()
    assert listed["data"]["user_memories"] == []  # nothing was written by the refused calls


def test_titles_and_ids_are_bounded_as_filter_lists_are(live: LiveServer) -> None:
    with live.client(KEYS["acme"]) as http:
        http.post("/databases", json={"database": "acme"}).raise_for_status()
        for field in ("titles", "ids"):
            many = [f"t{n}" for n in range(501)]
            refused = http.post("/query", json={"database": "acme", "query": "x", field: many})
            assert refused.status_code == 400, refused.text
            error = v2_error(refused)
            assert error["code"] == "VALIDATION_ERROR" and field in error["message"], error
            fine = http.post("/query", json={"database": "acme", "query": "x", field: many[:500]})
            assert fine.status_code == 200, fine.text
