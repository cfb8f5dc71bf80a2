"""BROAD and GRAPH_REPORT over HTTP (/api/v1/recall): the type names are accepted and
the records and the report come back in the results' metadata."""

from __future__ import annotations

MESSAGES = [
    {"id": "m1", "speaker": "Ann", "text": "I adopted a cat named Luna."},
    {"id": "m2", "speaker": "Ann", "text": "I got a puppy called Max."},
    {"id": "m3", "speaker": "Ann", "text": "Max and Luna sleep in the kitchen in Lyon."},
]


def test_broad_and_graph_report_over_http(live):
    with live.client() as client:
        stored = client.post(
            "/api/v1/remember", json={"data": [{"messages": MESSAGES}], "dataset_name": "chat"}
        )
        assert stored.status_code == 200, stored.text
        broad = client.post(
            "/api/v1/recall",
            json={"query_text": "How many pets does Ann have?", "query_type": "broad"},
        )
        assert broad.status_code == 200, broad.text
        first = broad.json()[0]
        assert first["search_type"] == "BROAD" and first["text"].startswith("2 pets")
        assert [r["item"] for r in first["metadata"]["records"]["records"]] == ["Luna", "Max"]
        report = client.post(
            "/api/v1/recall",
            json={"query_text": "What is this about?", "query_type": "GRAPH_REPORT"},
        )
        assert report.status_code == 200, report.text
        assert report.json()[0]["search_type"] == "GRAPH_REPORT"
        assert "hubs" in report.json()[0]["metadata"]["graph_report"]
