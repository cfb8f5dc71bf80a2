"""A search type registered outside the package is reachable over /api/v1/recall."""

from __future__ import annotations

from tests.custom_retriever import NAME


def test_api_v1_recall_runs_a_registered_type(live, registered) -> None:
    texts = ["Postgres runs billing.", "Billing moved to Postgres in March after a review."]
    with live.client() as client:
        stored = client.post("/api/v1/remember", json={"data": texts, "dataset_name": "docs"})
        assert stored.status_code == 200, stored.text
        response = client.post(
            "/api/v1/recall",
            json={"query_text": "postgres billing", "query_type": NAME.lower(), "top_k": 5},
        )
        assert response.status_code == 200, response.text
        results = response.json()
        unknown = client.post("/api/v1/recall", json={"query": "billing", "queryType": "NOPE"})
    assert [r["text"] for r in results] == texts
    assert {r["search_type"] for r in results} == {NAME}
    assert {r["kind"] for r in results} == {"shortest"}
    assert unknown.status_code in (400, 422) and NAME in unknown.text  # the choices name it
