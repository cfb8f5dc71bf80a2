"""include_references=True: the Evidence block under plain-text answers (issue 12)."""

from __future__ import annotations

import re

from pydantic import BaseModel, SecretStr

from recall_engine import Document, RecallEngine, SearchType
from recall_engine.core.models import SourceRef
from recall_engine.pipeline.references import SNIPPET_CHARS, choose, snippet
from recall_engine.testing import FakeLLMServer

RAG = SearchType.RAG_COMPLETION
BULLET = re.compile(
    r'^- chunk (\d+) of document (.+) \(data_id: ([0-9a-f-]+), chunk_id: ([0-9a-f-]+)\): "(.*)"$'
)
LONG = (
    "The Difference Engine build was blocked for two weeks.   The cause was an outage of "
    "the connection pool in the staging cluster, which ran out of file handles after a "
    "config change. Babbage asked for a post-mortem and the pool size was doubled. " * 2
)
DOCS = [
    Document(text=LONG, title="outage.md"),
    Document(text="The connection pool outage ended after the pool size was doubled.", title="fix"),
    Document(text="Ada wrote the notes on the engine build.", title="ada"),
    Document(text="The staging cluster runs on three machines.", title="cluster"),
    Document(text="Lunch is served at noon.", title="lunch"),
]


def _ref(i: int) -> SourceRef:
    return SourceRef(
        data_id=f"d{i}", chunk_id=f"c{i}", chunk_index=i, document_name=f"doc{i}",
        dataset_id="x", dataset_name="x",
    )  # fmt: skip


def test_snippets_are_collapsed_cut_and_start_at_the_best_sentence():
    text = "Intro words here.\n\n  The  pool   outage was fixed. " + "more " * 60
    quote = snippet(text, {"pool", "outag"})
    assert quote.startswith("...The pool outage was fixed.")
    assert len(quote) <= SNIPPET_CHARS and quote.endswith("...") and "  " not in quote
    assert snippet("Short one.", set()) == "Short one."


def test_chunks_are_chosen_by_overlap_then_rank_three_to_five():
    refs = [_ref(i) for i in range(7)]
    texts = {f"c{i}": f"word{i} filler" for i in range(7)}
    texts["c5"] = "pool outage pool"
    texts["c6"] = "pool"
    chosen = [r.chunk_id for r, _ in choose(refs, texts, "The pool outage")]
    assert chosen == ["c5", "c6", "c0"]  # overlap first, then the best-ranked fill up to 3
    many = {f"c{i}": "pool outage" for i in range(7)}
    assert len(choose(refs, many, "pool outage")) == 5
    assert choose(refs[:2], texts, "nothing") == [
        (refs[0], "word0 filler"),
        (refs[1], "word1 filler"),
    ]


async def test_evidence_block_under_an_extractive_answer(engine):
    await engine.remember(DOCS, dataset_name="ops")
    (plain,) = await engine.recall("What caused the connection pool outage?", RAG)
    (entry,) = await engine.recall(
        "What caused the connection pool outage?", RAG, include_references=True
    )
    answer, _, block = entry.text.partition("\n\nEvidence:\n")
    assert answer == plain.text and block
    bullets = block.splitlines()
    assert 3 <= len(bullets) <= 5
    sources = {s["chunk_id"]: s for s in entry.metadata["sources"]}
    seen = set()
    for line in bullets:
        n, doc, data_id, chunk_id, quote = BULLET.match(line).groups()
        assert chunk_id in sources and chunk_id not in seen
        seen.add(chunk_id)
        src = sources[chunk_id]
        assert (int(n), doc, data_id) == (src["chunk_index"], src["document_name"], src["data_id"])
        assert len(quote) <= SNIPPET_CHARS and "  " not in quote
    assert BULLET.match(bullets[0]).group(2) in ("outage.md", "fix")
    cited = [BULLET.match(line).group(4) for line in bullets]
    assert [r["chunk_id"] for r in entry.metadata["references"]] == cited


async def test_no_evidence_for_context_items_or_structured_answers(tmp_path, hash_embedder):
    class Cause(BaseModel):
        cause: str

    with FakeLLMServer() as server:
        engine = RecallEngine(
            tmp_path,
            embedder=hash_embedder,
            llm_model="openai/fake-model",
            llm_api_base=server.base_url,
            llm_api_key=SecretStr("test"),
            llm_max_retries=0,
        )
        try:
            await engine.remember(DOCS, dataset_name="ops")
            server.enqueue("The pool ran out of file handles.", '{"cause": "file handles"}')
            q = "What caused the connection pool outage?"
            (llm,) = await engine.recall(q, RAG, include_references=True)
            assert llm.text.startswith("The pool ran out of file handles.\n\nEvidence:\n- chunk ")
            (structured,) = await engine.recall(
                q, RAG, include_references=True, response_model=Cause
            )
            assert structured.structured == {"cause": "file handles"}
            assert "Evidence" not in structured.text
            (ctx,) = await engine.recall(q, RAG, include_references=True, only_context=True)
            assert "Evidence:" not in ctx.text
            items = await engine.recall(q, SearchType.CHUNKS, include_references=True)
            assert not any("Evidence:" in i.text for i in items)
        finally:
            engine.close()
