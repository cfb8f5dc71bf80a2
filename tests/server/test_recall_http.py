"""Every endpoint's happy path and the recall semantics, through a running server."""

from __future__ import annotations

import json

import pytest

ALPHA_CORPUS = [
    (
        "semantic",
        "Mechanics repair a broken vehicle motor by replacing spark plugs and changing the oil.",
    ),
    (
        "keyword",
        "Fix protocol engine: the CAR field in a FIX message names the counterparty; my config sets it.",
    ),
    ("f1", "Tomatoes grow best in warm soil with plenty of sunlight."),
    ("f2", "The museum opens at nine and closes at five on weekdays."),
    ("f3", "Penguins live in the southern hemisphere and eat fish."),
]


def _setup(client, tenant="acme", **schema):
    assert client.post("/tenants/create", json={"tenant_id": tenant, **schema}).status_code == 200


def _memories(client, memories, sub="user_alex", tenant="acme", **extra):
    response = client.post(
        "/memories/add_memory",
        json={"tenant_id": tenant, "sub_tenant_id": sub, "memories": memories, **extra},
    )
    assert response.status_code == 200, response.text
    return response.json()


def _recall(client, path="/recall/recall_preferences", **body):
    response = client.post(path, json={"tenant_id": "acme", **body})
    assert response.status_code == 200, response.text
    return response.json()


def test_alpha_zero_ranks_by_keyword_and_one_by_meaning(make_server, onnx_minilm):
    live = make_server(embedder=onnx_minilm)
    with live.client() as client:
        _setup(client)
        sources = [{"id": i, "text": t} for i, t in ALPHA_CORPUS]
        upload = client.post(
            "/ingestion/upload_knowledge", json={"tenant_id": "acme", "app_sources": sources}
        )
        assert upload.json()["success_count"] == 5
        query = "How do I fix my car engine?"
        keyword = _recall(client, "/recall/full_recall", query=query, alpha=0.0, max_results=3)
        semantic = _recall(client, "/recall/full_recall", query=query, alpha=1.0, max_results=3)
        auto = _recall(client, "/recall/full_recall", query=query, alpha="auto")
    assert keyword["chunks"][0]["source_id"] == "keyword"
    assert semantic["chunks"][0]["source_id"] == "semantic"
    assert keyword["alpha_used"] == 0.0 and semantic["alpha_used"] == 1.0
    assert 0.0 <= auto["alpha_used"] <= 1.0
    scores = [c["relevancy_score"] for c in semantic["chunks"]]
    assert scores == sorted(scores, reverse=True)


def test_recency_bias_puts_the_newest_relevant_memory_first(live):
    with live.client() as client:
        _setup(client)
        _memories(
            client,
            [
                {
                    "source_id": "old",
                    "text": "I drink green tea every morning",
                    "timestamp": "2021-01-01T00:00:00Z",
                },
                {
                    "source_id": "mid",
                    "text": "I drink black tea every morning now",
                    "timestamp": "2022-06-01T00:00:00Z",
                },
                {
                    "source_id": "new",
                    "text": "These days I drink green tea with lemon every morning",
                    "timestamp": "2024-03-01T00:00:00Z",
                },
                {
                    "source_id": "noise",
                    "text": "The garage door is painted blue",
                    "timestamp": "2025-01-01T00:00:00Z",
                },
            ],
        )
        plain = _recall(client, query="I drink green tea every morning", sub_tenant_id="user_alex")
        recent = _recall(
            client,
            query="I drink green tea every morning",
            sub_tenant_id="user_alex",
            recency_bias=1.0,
        )
    assert plain["chunks"][0]["source_id"] == "old"
    order = [c["source_id"] for c in recent["chunks"]]
    assert order[0] == "new"
    assert order.index("new") < order.index("mid") < order.index("old")
    assert "noise" not in order[:3]


def test_as_of_over_http_answers_with_what_was_said_by_then(live):
    with live.client() as client:
        _setup(client)
        _memories(
            client,
            [
                {
                    "source_id": "red",
                    "text": "My favourite colour is red",
                    "timestamp": "2023-01-01",
                },
                {
                    "source_id": "blue",
                    "text": "My favourite colour is blue now",
                    "timestamp": "2024-01-01",
                },
            ],
        )
        then = _recall(
            client, query="favourite colour", sub_tenant_id="user_alex", as_of="2023-06-01"
        )
        now = _recall(client, query="favourite colour", sub_tenant_id="user_alex")
        bad = client.post(
            "/recall/recall_preferences",
            json={"tenant_id": "acme", "query": "colour", "as_of": "not a time"},
        )
    assert [c["source_id"] for c in then["chunks"]] == ["red"]
    assert {"red", "blue"} <= {c["source_id"] for c in now["chunks"]}
    assert bad.status_code in (400, 422) and "as_of" in bad.text


def test_metadata_filters_match_exactly_inside_the_search(live):
    with live.client() as client:
        _setup(
            client,
            tenant_metadata_schema=[{"name": "dept", "enable_match": True}, {"name": "region"}],
        )
        memories = [
            {
                "source_id": f"m{i}",
                "text": f"Quarterly planning note number {i} about budgets",
                "tenant_metadata": json.dumps({"dept": "eng" if i % 6 == 0 else "sales"}),
                "additional_metadata": {"source": "onboarding" if i % 2 else "import"},
            }
            for i in range(36)
        ]
        _memories(client, memories)
        found = _recall(
            client,
            query="planning note",
            sub_tenant_id="user_alex",
            max_results=5,
            metadata_filters={"dept": "eng"},
        )
        nested = _recall(
            client,
            query="planning note",
            sub_tenant_id="user_alex",
            max_results=4,
            metadata_filters={"dept": "sales", "additional_metadata": {"source": "onboarding"}},
        )
        region = client.post(
            "/recall/recall_preferences",
            json={"tenant_id": "acme", "query": "x", "metadata_filters": {"region": "EU"}},
        )
    assert len(found["chunks"]) == 5
    assert all(c["tenant_metadata"] == {"dept": "eng"} for c in found["chunks"])
    assert len(nested["chunks"]) == 4
    assert all(c["document_metadata"]["source"] == "onboarding" for c in nested["chunks"])
    assert all(c["tenant_metadata"]["dept"] == "sales" for c in nested["chunks"])
    assert region.status_code == 400 and "'region'" in region.json()["detail"]["message"]


def test_graph_context_is_populated_and_consistent(live):
    with live.client() as client:
        _setup(client)
        text = (
            "Albert Einstein was born in Ulm. Einstein worked at the patent office in Bern. "
            "Marie Curie was born in Warsaw. Marie Curie worked in Paris."
        )
        client.post(
            "/ingestion/upload_knowledge",
            json={
                "tenant_id": "acme",
                "app_sources": [{"id": "d1", "title": "Physicists", "text": text}],
            },
        )
        result = _recall(
            client, "/recall/full_recall", query="Where was Einstein born?", graph_context=True
        )
        without = _recall(client, "/recall/full_recall", query="Where was Einstein born?")
    graph = result["graph_context"]
    assert graph["query_paths"] and graph["chunk_relations"]
    returned = {c["chunk_uuid"] for c in result["chunks"]}
    groups = {g["group_id"] for g in graph["chunk_relations"]}
    assert set(graph["chunk_id_to_group_ids"]) <= returned
    for chunk_id, ids in graph["chunk_id_to_group_ids"].items():
        assert set(ids) <= groups
        for group in graph["chunk_relations"]:
            if group["group_id"] in ids:
                assert group["source_chunk_ids"] == [chunk_id]
                assert all(t["relation"]["chunk_id"] == chunk_id for t in group["triplets"])
    triplet = graph["query_paths"][0]["triplets"][0]
    assert {"name", "type", "namespace", "entity_id", "identifier"} == set(triplet["source"])
    assert without["graph_context"] == {
        "query_paths": [],
        "chunk_relations": [],
        "chunk_id_to_group_ids": {},
    }


def test_thinking_mode_attaches_forceful_relations(live):
    with live.client() as client:
        _setup(client)
        _memories(
            client,
            [
                {
                    "source_id": "pref",
                    "text": "User prefers concise answers in bullet points",
                    "relations": {"cortex_source_ids": ["ctx"]},
                },
                {
                    "source_id": "ctx",
                    "text": "The user is a busy hospital doctor working night shifts",
                },
            ],
        )
        fast = _recall(
            client, query="answer style bullet points", sub_tenant_id="user_alex", max_results=1
        )
        thinking = _recall(
            client,
            query="answer style bullet points",
            sub_tenant_id="user_alex",
            max_results=1,
            mode="thinking",
        )
    assert fast["chunks"][0]["source_id"] == "pref" and not fast["chunks"][0]["extra_context_ids"]
    chunk = thinking["chunks"][0]
    assert chunk["source_id"] == "pref" and chunk["extra_context_ids"]
    extra = thinking["additional_context"][chunk["extra_context_ids"][0]]
    assert extra["source_id"] == "ctx"


def test_upsert_expiry_boolean_and_sub_tenants(live):
    with live.client() as client:
        _setup(client)
        _memories(client, [{"source_id": "s", "text": "My favourite colour is red"}])
        _memories(client, [{"source_id": "s", "text": "My favourite colour is green"}])
        refused = _memories(client, [{"source_id": "s", "text": "blue"}], upsert=False)
        _memories(
            client, [{"source_id": "gone", "text": "A temporary colour note", "expiry_time": 1}]
        )
        import time

        time.sleep(1.2)
        result = _recall(client, query="favourite colour", sub_tenant_id="user_alex")
        other = _recall(client, query="favourite colour", sub_tenant_id="user_bob")
        phrase = _recall(
            client,
            "/recall/boolean_recall",
            query="colour is green",
            operator="phrase",
            search_mode="memories",
            sub_tenant_id="user_alex",
        )
        wrong_phrase = _recall(
            client,
            "/recall/boolean_recall",
            query="green is colour",
            operator="phrase",
            search_mode="memories",
            sub_tenant_id="user_alex",
        )
        both = _recall(
            client,
            "/recall/boolean_recall",
            query="favourite green",
            operator="and",
            search_mode="memories",
            sub_tenant_id="user_alex",
        )
        subs = client.get("/tenants/sub_tenant_ids", params={"tenant_id": "acme"}).json()
    assert refused["failed_count"] == 1 and "upsert" in refused["results"][0]["error"]
    texts = [c["chunk_content"] for c in result["chunks"]]
    assert texts == ["My favourite colour is green"]
    assert other["chunks"] == []
    assert [c["source_id"] for c in phrase["chunks"]] == ["s"]
    assert wrong_phrase["chunks"] == []
    assert [c["source_id"] for c in both["chunks"]] == ["s"]
    assert subs["sub_tenant_ids"] == ["user_alex"]


def test_upload_files_list_fetch_delete_and_qna(live):
    with live.client() as client:
        _setup(client)
        files = [("files", ("curie.txt", b"Marie Curie worked in Paris on radium.", "text/plain"))]
        data = {
            "tenant_id": "acme",
            "file_metadata": json.dumps(
                [{"file_id": "f1", "additional_metadata": {"kind": "bio"}}]
            ),
            "app_sources": json.dumps(
                {"id": "a1", "title": "Ulm", "content": {"text": "Ulm is a city on the Danube."}}
            ),
        }
        upload = client.post("/ingestion/upload_knowledge", data=data, files=files).json()
        assert upload["success_count"] == 2
        status = client.post(
            "/ingestion/verify_processing", params={"tenant_id": "acme", "file_ids": ["f1", "zz"]}
        ).json()
        assert [s["indexing_status"] for s in status["statuses"]] == ["completed", "errored"]
        listed = client.post(
            "/list/data",
            json={"tenant_id": "acme", "filters": {"document_metadata": {"kind": "bio"}}},
        ).json()
        assert [s["id"] for s in listed["sources"]] == ["f1"]
        content = client.post(
            "/fetch/content", json={"tenant_id": "acme", "source_id": "a1"}
        ).json()
        assert content["content"] == "Ulm is a city on the Danube."
        answer = client.post(
            "/recall/qna", json={"tenant_id": "acme", "question": "Where did Marie Curie work?"}
        ).json()
        assert "Paris" in answer["answer"] and answer["answer_mode"] == "extractive"
        relations = client.get(
            "/list/graph_relations_by_id", params={"tenant_id": "acme", "source_id": "f1"}
        ).json()
        assert relations["success"] is True
        deleted = client.post(
            "/knowledge/delete_knowledge", json={"tenant_id": "acme", "ids": ["f1", "nope"]}
        ).json()
        assert deleted["deleted_count"] == 1
        after = _recall(client, "/recall/full_recall", query="Marie Curie Paris")
        assert all(c["source_id"] != "f1" for c in after["chunks"])
        monitor = client.get("/tenants/monitor", params={"tenant_id": "acme"}).json()
        assert monitor["normal_collection"]["row_count"] == 1
        assert client.get("/tenants/infra/status", params={"tenant_id": "acme"}).status_code == 200
        assert client.delete("/tenants/delete", params={"tenant_id": "acme"}).status_code == 200
        gone = client.post("/recall/full_recall", json={"tenant_id": "acme", "query": "Ulm"})
        assert gone.status_code == 404


@pytest.mark.parametrize("camel", [True, False])
def test_api_v1_remember_and_recall(live, camel):
    with live.client() as client:
        remember = {
            "data": [
                "Einstein was born in Ulm.",
                {"messages": [{"speaker": "Ann", "text": "I moved to Lyon"}]},
            ]
        }
        remember |= {"datasetName": "physics"} if camel else {"dataset_name": "physics"}
        stored = client.post("/api/v1/remember", json=remember)
        assert stored.status_code == 200, stored.text
        assert stored.json()["dataset_name"] == "physics"
        ask = (
            {
                "queryText": "Where was Einstein born?",
                "queryType": "CHUNKS",
                "topK": 2,
                "onlyContext": True,
            }
            if camel
            else {
                "query_text": "Where was Einstein born?",
                "query_type": "CHUNKS",
                "top_k": 2,
                "only_context": True,
            }
        )
        results = client.post("/api/v1/recall", json=ask)
        assert results.status_code == 200, results.text
        assert "Ulm" in results.json()[0]["text"]
        unknown = client.post("/api/v1/recall", json={**ask, "bogus": 1})
        assert unknown.status_code == 422
        path_like = client.post("/api/v1/remember", json={"data": "/etc/passwd"})
        assert path_like.status_code == 200  # stored as text, never read from disk
