"""bench.peers without Cognee: its scripted replies validate against the schemas a
structured-output client sends, and its local server answers the OpenAI routes."""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
import urllib.request
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from pydantic import BaseModel, Field

from bench.peers._cognee import OFFLINE, CogneePeer, PeerError, spec_sample
from bench.peers._scripted import names, reply_for, requested_schema, schema_title
from bench.peers._server import PeerServer
from bench.peers.cognee_driver import windows
from recall_engine import Conversation, Message
from recall_engine.testing import DeterministicEmbedder

ROOT = Path(__file__).resolve().parents[2]
TEXT = "Maria Lopez met Tom in Porto. They talked about a new bakery. It was fun!"


class Node(BaseModel):
    id: str
    name: str = ""
    type: str
    description: str


class Edge(BaseModel):
    source_node_id: str
    target_node_id: str
    relationship_name: str
    description: str | None = Field(None)


class Graph(BaseModel):
    nodes: list[Node] = Field(default_factory=list)
    edges: list[Edge] = Field(default_factory=list)


class Summary(BaseModel):
    summary: str
    description: str
    tags: list[str]
    score: float | None = None


def _request(model: type[BaseModel], *, in_prompt: bool) -> dict[str, Any]:
    schema = model.model_json_schema()
    if in_prompt:
        system = f"Answer as JSON:\n```json\n{json.dumps(schema, indent=2)}\n```\nNo prose."
        return {
            "messages": [{"role": "system", "content": system}, {"role": "user", "content": TEXT}],
            "response_format": {"type": "json_object"},
        }
    return {
        "messages": [{"role": "user", "content": TEXT}],
        "response_format": {"type": "json_schema", "json_schema": {"schema": schema}},
    }


def test_a_graph_reply_validates_and_holds_the_texts_names() -> None:
    for in_prompt in (False, True):
        graph = Graph.model_validate_json(reply_for(_request(Graph, in_prompt=in_prompt)))
        assert [n.id for n in graph.nodes] == ["Maria Lopez", "Tom", "Porto"]
        assert [(e.source_node_id, e.target_node_id) for e in graph.edges] == [
            ("Maria Lopez", "Tom"),
            ("Tom", "Porto"),
        ]


def test_other_schemas_get_their_required_fields_from_the_text() -> None:
    summary = Summary.model_validate_json(reply_for(_request(Summary, in_prompt=False)))
    assert summary.summary == "Maria Lopez met Tom in Porto."
    assert summary.tags == []
    assert schema_title(_request(Summary, in_prompt=True)) == "Summary"


def test_a_request_without_a_schema_gets_a_sentence() -> None:
    request = {"messages": [{"role": "user", "content": TEXT}]}
    assert requested_schema(request) is None
    assert reply_for(request) == "Maria Lopez met Tom in Porto."
    assert names("It was Monday. So Ada said yes.") == ["Monday", "Ada"]


def _post(url: str, body: dict[str, Any]) -> dict[str, Any]:
    req = urllib.request.Request(
        url, json.dumps(body).encode(), {"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(req, timeout=10) as resp:
        return json.loads(resp.read())


def test_the_server_embeds_with_the_given_embedder_and_answers_chat() -> None:
    embedder = DeterministicEmbedder()
    with PeerServer(embedder) as server:
        floats = _post(f"{server.base_url}/embeddings", {"input": ["a b", "c"], "model": "m"})
        packed = _post(
            f"{server.base_url}/embeddings", {"input": "a b", "encoding_format": "base64"}
        )
        chat = _post(f"{server.base_url}/chat/completions", _request(Graph, in_prompt=False))
        stats = server.stats()
    expected = embedder.embed(["a b", "c"])
    assert np.allclose([d["embedding"] for d in floats["data"]], expected, atol=1e-6)
    vector = np.frombuffer(base64.b64decode(packed["data"][0]["embedding"]), dtype="<f4")
    assert np.allclose(vector, expected[0], atol=1e-6)
    Graph.model_validate_json(chat["choices"][0]["message"]["content"])
    assert stats["calls"] == {"embeddings": 2, "chat:Graph": 1}
    assert stats["texts_embedded"] == 3


def test_a_conversation_becomes_dated_windows_of_turns() -> None:
    from datetime import datetime

    day1, day2 = datetime(2023, 5, 8, 13, 56), datetime(2023, 5, 25, 9, 0)
    messages = [
        Message(id=f"D1:{i}", speaker="AB"[i % 2], text=f"t{i}", timestamp=day1) for i in range(7)
    ]
    messages += [Message(id="D2:1", speaker="A", text="later", timestamp=day2)]
    spec = spec_sample(_sample(Conversation(messages=messages)), "ds")
    assert [len(s["turns"]) for s in spec["sessions"]] == [7, 1]
    texts = windows(spec, 6)
    assert len(texts) == 3  # the overview, session 1 (its 1-turn tail folded in), session 2
    assert texts[1].startswith(
        "Session 1 of the conversation between A and B, which took place at 1:56 PM on 8 May, 2023."
    )
    assert texts[1].count("\n") == 7


def _sample(conversation: Conversation) -> Any:
    from bench._data import Sample

    return Sample("s-1", conversation)


def test_the_command_starts_without_cognee() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "bench.peers", "--help"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert "--cognee-python" in result.stdout


def test_cognees_process_refuses_connections_off_this_machine(tmp_path: Path) -> None:
    # The real connect and lookup are swapped for recorders first, so that even a broken
    # guard sends nothing anywhere.
    code = (
        "import socket, sitecustomize as g\n"
        "sent = []\n"
        "g._connect = lambda s, a: sent.append(a)\n"
        "g._getaddrinfo = lambda *a, **k: sent.append(a[0])\n"
        "for call in (lambda: socket.socket().connect(('203.0.113.5', 443)),\n"
        "             lambda: socket.getaddrinfo('peers.invalid', 443)):\n"
        "    try:\n"
        "        call()\n"
        "    except ConnectionRefusedError:\n"
        "        pass\n"
        "socket.socket().connect(('127.0.0.1', 9))\n"
        "print(sent)\n"
    )
    log = tmp_path / "refused.txt"
    env = {**os.environ, "PYTHONPATH": str(OFFLINE), "PEERS_NET_LOG": str(log)}
    result = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[('127.0.0.1', 9)]"
    assert log.read_text().split() == ["203.0.113.5", "peers.invalid"]


def test_a_missing_cognee_venv_is_named_with_the_fix(tmp_path: Path) -> None:
    peer = CogneePeer(
        tmp_path / "nope" / "python", base_url="http://127.0.0.1:1/v1", root=tmp_path, timeout_s=5
    )
    with pytest.raises(PeerError, match=r"requirements\.txt"):
        peer.__enter__()


class _Recorder:
    """Both sides of ``compare`` at once: every recall call in the order it came."""

    version = "0"

    def __init__(self) -> None:
        self.calls: list[tuple[str, str, int]] = []  # (side, mode, first question's number)

    async def remember(self, sample: Any) -> dict[str, Any]:
        return {"seconds": 1.0}

    async def recall(
        self, mode: str, part: list[tuple[str, str]], top_k: int, warm_up: bool
    ) -> dict[str, Any]:
        self.calls.append(("ours", mode, int(part[0][1])))
        return {"seconds": [0.001] * len(part), "empty": 0}

    def embed(self, part: list[tuple[str, str]]) -> dict[str, Any]:
        return {"seconds": [0.001] * len(part), "empty": 0}

    def call(self, op: str, **kwargs: Any) -> dict[str, Any]:
        if op == "recall":
            questions = kwargs["questions"]
            self.calls.append(("cognee", kwargs["mode"], int(questions[0]["text"])))
            return {"seconds": [0.002] * len(questions), "empty": 0}
        return {"seconds": 1.0} if op == "remember" else {}

    def refused_hosts(self) -> list[str]:
        return []


def test_every_mode_is_timed_in_every_round_on_both_sides() -> None:
    # Timing one mode after another would put whatever the first minutes after the
    # ingest cost on the first mode alone.
    import argparse
    import asyncio

    from bench.peers.__main__ import compare

    questions = [("ds", str(i)) for i in range(8)]
    args = argparse.Namespace(rounds=4, modes=["CHUNKS", "GRAPH_COMPLETION"], top_k=10)
    args.window_turns = 6
    sides = _Recorder()
    sample = _sample(Conversation(messages=[Message(id="D1:1", speaker="A", text="hi")]))
    report = asyncio.run(compare(args, [sample], questions, sides, sides))
    first = [(side, mode) for side, mode, q in sides.calls if q == 0]
    assert first == [
        ("ours", "CHUNKS"),
        ("cognee", "CHUNKS"),
        ("ours", "GRAPH_COMPLETION"),
        ("cognee", "GRAPH_COMPLETION"),
        ("ours", "ROUTED"),
        ("cognee", "DEFAULT"),
    ]
    rounds = [q for _, _, q in sides.calls]
    assert rounds == sorted(rounds)  # a round ends before the next slice starts
    second = [(side, mode) for side, mode, q in sides.calls if q == 2]
    assert second[:2] == [("cognee", "DEFAULT"), ("ours", "ROUTED")]  # both orders swap
    wanted = ("CHUNKS", "GRAPH_COMPLETION", "default")
    for side in ("ours", "cognee"):
        modes = report[side]["modes"]
        assert {m: modes[m]["n"] for m in wanted} == dict.fromkeys(wanted, 8)
