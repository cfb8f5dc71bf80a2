"""One real LoCoMo conversation (conv-26, Caroline and Melanie) through extraction
and resolution. Data is read from shared/bench-data at test time."""

from __future__ import annotations

from recall_engine.graph import ChunkInput, EntityType, GraphExtraction, RuleBasedExtractor, resolve


async def _graph(chunks: list[ChunkInput]) -> GraphExtraction:
    return resolve(await RuleBasedExtractor().extract(chunks)).graph


async def test_speakers_relations_and_dated_events(locomo_conversation: list[ChunkInput]) -> None:
    graph = await _graph(locomo_conversation)
    by_name = {e.name: e for e in graph.entities}
    for speaker in ("Caroline", "Melanie"):
        assert by_name[speaker].type is EntityType.PERSON
    names = {e.id: e.name for e in graph.entities}
    triples = {(names[r.source_id], r.predicate, names[r.target_id]) for r in graph.relations}
    assert ("Caroline", "visited", "LGBTQ support group") in triples
    assert ("Melanie", "joined", "pottery class") in triples
    visits = [r for r in graph.relations if r.predicate in {"visited", "moved_to", "joined"}]
    assert len(visits) >= 10
    assert sum(r.timestamp is not None for r in visits) >= 5
    # "I went to a LGBTQ support group yesterday", said on 8 May 2023.
    support = next(r for r in visits if names[r.target_id] == "LGBTQ support group")
    assert support.chunk_id == "D1:3" and support.timestamp is not None
    assert support.timestamp.date().isoformat() == "2023-05-07"
    dated = [e for e in graph.events if e.time_text]
    assert len(dated) >= 20
    assert any(e.chunk_id == "D1:3" and e.time.date().isoformat() == "2023-05-07" for e in dated)
    chunk_ids = {c.chunk_id for c in locomo_conversation}
    assert all(r.chunk_id in chunk_ids for r in graph.relations)
    assert all(m.chunk_id in chunk_ids for m in graph.mentions)


async def test_counts_are_stable_across_runs(locomo_conversation: list[ChunkInput]) -> None:
    first, second = await _graph(locomo_conversation), await _graph(locomo_conversation)
    counts = [
        (len(g.entities), len(g.relations), len(g.events), len(g.mentions)) for g in (first, second)
    ]
    assert counts[0] == counts[1]
    assert first == second
