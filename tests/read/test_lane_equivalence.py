"""The passage lane's reads made cheaper without changing what they return.

Hits are built from stored records without validation (``core.trusted``), title
lookups join only phrases that could be a title, scopes of one dataset skip
``isin``, candidates are ranked as places (``ChunkPlace``) and only the chunks
kept become hits: each is checked against the plain way here, and the lane's
ranked ids and scores on a small corpus are pinned to what the lane returned before.
"""

from __future__ import annotations

import numpy as np
import pytest

from recall_engine import Conversation, Document, Message, RecallEngine
from recall_engine.core.hits import ChunkHit, EntityHit, EntityRef, RowHit, TripletHit
from recall_engine.core.models import SourceRef
from recall_engine.read.api import ChunkPlace
from recall_engine.read.filters import ChunkFilter
from recall_engine.read.store_reader import StoreReader
from recall_engine.read.titles import MAX_WORDS, named_in, title_index
from retrievers.passages import PassageConfig, passages

TURNS = [
    ("Ann", "I adopted a grey cat called Pixel last week."),
    ("Bo", "Nice! Does Pixel get along with your dog Rex?"),
    ("Ann", "Rex hides under the sofa whenever Pixel walks by."),
    ("Bo", "My sister moved to Lyon for a job at a bakery."),
    ("Ann", "Lyon is lovely in spring; the bakery sounds fun."),
    ("Bo", "She bakes sourdough every morning at five."),
    ("Ann", "I ran the Oslo half marathon in 2022."),
    ("Bo", "What was your time in Oslo?"),
    ("Ann", "One hour fifty, slower than I hoped."),
    ("Bo", "Next year I want to try the Berlin marathon."),
]
DOCS = [
    ("Pixel", "A grey cat who lives with Ann and a dog named Rex."),
    ("Lyon", "A French city known for its bakeries and the Rhone."),
    ("Berlin marathon", "A race held every autumn through Berlin, very flat."),
]
QUERIES = [
    "What is the name of Ann's cat?",
    "Where did Bo's sister move for work?",
    "Which marathon did Ann run and how fast?",
    "Berlin marathon",
]
# What the lane returned for QUERIES (k=6) before these changes (commit 5ca9c38),
# unfiltered and with a filter bound to the reader: (chunk id, score) rounded.
GOLDEN_PLAIN: list[list[tuple[str, float]]] = [
    [
        ("0e956a83-0ace-5950-ae67-5e495f59118a", 2.143878848),
        ("90ae46e9-02af-529d-b1d7-9b36fec81b2b", 1.341673073),
        ("4c05ecdf-7174-5ed7-9f9d-a13273ad051d", 1.330799823),
        ("85da60e7-954d-577d-8418-f50121c7f292", 1.290809701),
        ("ce98392a-af02-575b-a323-0f7839458d2a", 1.057306641),
        ("886844cf-1c39-5eaa-bff0-90e9f69fb40e", 0.958720368),
    ],
    [
        ("886844cf-1c39-5eaa-bff0-90e9f69fb40e", 2.493311376),
        ("85da60e7-954d-577d-8418-f50121c7f292", 1.56007031),
        ("4dde8790-d716-5c04-b633-d8fa8560adf2", 1.484846958),
        ("d9d9f12d-cb8b-5bf0-a4ef-21c31c1a1ea6", 1.377134948),
        ("90ae46e9-02af-529d-b1d7-9b36fec81b2b", 1.261046255),
        ("a12d48fe-1f40-55a4-ab56-0832df6e0b87", 1.139219182),
    ],
    [
        ("ce98392a-af02-575b-a323-0f7839458d2a", 1.940598651),
        ("4dde8790-d716-5c04-b633-d8fa8560adf2", 1.173792816),
        ("85da60e7-954d-577d-8418-f50121c7f292", 1.110895495),
        ("0e956a83-0ace-5950-ae67-5e495f59118a", 1.0),
        ("4c05ecdf-7174-5ed7-9f9d-a13273ad051d", 0.92832962),
        ("df71e722-4136-554a-bdb5-5e9015ad8208", 0.926943635),
    ],
    [
        ("382e63a4-0741-5eb4-9fc7-3ca0058af760", 3.121182245),
        ("df71e722-4136-554a-bdb5-5e9015ad8208", 1.552955612),
        ("e6e9b8d0-65cd-5e48-b21c-2e744f242734", 0.517803227),
        ("ce98392a-af02-575b-a323-0f7839458d2a", 0.346110286),
        ("8e61bff2-091d-57df-913d-d73d2d71d364", 0.336776428),
        ("a12d48fe-1f40-55a4-ab56-0832df6e0b87", 0.103833086),
    ],
]
GOLDEN_FILTERED: list[list[tuple[str, float]]] = [
    [
        ("0e956a83-0ace-5950-ae67-5e495f59118a", 2.0),
        ("d9d9f12d-cb8b-5bf0-a4ef-21c31c1a1ea6", 0.146328526),
        ("382e63a4-0741-5eb4-9fc7-3ca0058af760", 0.0),
    ],
    [
        ("d9d9f12d-cb8b-5bf0-a4ef-21c31c1a1ea6", 1.0),
        ("0e956a83-0ace-5950-ae67-5e495f59118a", 0.854242189),
        ("382e63a4-0741-5eb4-9fc7-3ca0058af760", 0.0),
    ],
    [
        ("0e956a83-0ace-5950-ae67-5e495f59118a", 2.0),
        ("382e63a4-0741-5eb4-9fc7-3ca0058af760", 0.25588914),
        ("d9d9f12d-cb8b-5bf0-a4ef-21c31c1a1ea6", 0.0),
    ],
    [
        ("382e63a4-0741-5eb4-9fc7-3ca0058af760", 2.5),
        ("0e956a83-0ace-5950-ae67-5e495f59118a", 0.0),
        ("d9d9f12d-cb8b-5bf0-a4ef-21c31c1a1ea6", 0.0),
    ],
]


async def _corpus(engine):
    messages = [
        Message(id=f"D1:{n}", speaker=who, text=text, timestamp="2023-05-08T13:56:00")
        for n, (who, text) in enumerate(TURNS, start=1)
    ]
    await engine.remember(Conversation(messages=messages), dataset_name="chat")
    docs = [Document(text=t, title=title, metadata={"kind": "page"}) for title, t in DOCS]
    await engine.remember(docs, dataset_name="wiki")
    store = engine.store()
    return store, list(store.datasets())


async def _ranked(read, engine, query: str) -> list[tuple[str, float]]:
    vector = np.asarray(engine.embedder.embed([query])[0], dtype=np.float32)
    found = await passages(read, vector, query, 6, PassageConfig(follow_links=False))
    return [(h.chunk_id, round(h.score, 9)) for h in found]


async def test_the_lane_ranks_as_it_did(tmp_path, hash_embedder):
    # The golden lists predate sentence vectors (storage.sentence_index) and followed
    # links (retrievers.passages): what is pinned here is the lane's reads, so the corpus
    # is stored with chunk vectors only and the lane runs without following links.
    engine = RecallEngine(tmp_path / "data", embedder=hash_embedder, sentence_vectors=False)
    store, dataset_ids = await _corpus(engine)
    plain = StoreReader(store, dataset_ids)
    bound = StoreReader(
        store, dataset_ids, where=ChunkFilter(equals=((("kind",), "page"),), alive_at=1.0)
    )
    assert [await _ranked(plain, engine, q) for q in QUERIES] == GOLDEN_PLAIN
    assert [await _ranked(bound, engine, q) for q in QUERIES] == GOLDEN_FILTERED
    engine.close()


async def test_unvalidated_hits_equal_validated_ones(engine):
    store, dataset_ids = await _corpus(engine)
    reader = StoreReader(store, dataset_ids)
    records = store.index.records()
    assert records
    for record in records:
        built = reader._chunk_hit(record, 0.25)
        ref = SourceRef(
            data_id=record.data_id,
            chunk_id=record.id,
            chunk_index=record.chunk_index,
            document_name=record.document_name,
            dataset_id=record.dataset_id,
            dataset_name=record.dataset_name,
            message_ids=list(record.message_ids),
        )
        validated = ChunkHit(
            score=0.25,
            sources=(ref,),
            dataset_id=record.dataset_id,
            dataset_name=record.dataset_name,
            chunk_id=record.id,
            data_id=record.data_id,
            chunk_index=record.chunk_index,
            text=record.text,
            document_name=record.document_name,
            metadata=dict(record.metadata),
            message_ids=record.message_ids,
            speaker=record.speaker,
            timestamp=record.timestamp,
        )
        assert built == validated and repr(built) == repr(validated)
        assert built.model_dump_json() == validated.model_dump_json()
        assert built.model_fields_set == validated.model_fields_set
        assert built.sources[0].model_fields_set == ref.model_fields_set
        assert built.metadata is not record.metadata  # a copy, as validation made
        with pytest.raises(Exception, match="frozen"):
            built.score = 1.0  # type: ignore[misc]
        copied = built.with_score(0.5)
        assert copied.score == 0.5 and copied.chunk_id == built.chunk_id


def _place(hit: ChunkHit) -> ChunkPlace:
    return ChunkPlace(hit.chunk_id, hit.data_id, hit.chunk_index, hit.score)


async def test_places_are_the_hits_reads_without_the_hits(engine):
    store, dataset_ids = await _corpus(engine)
    bound = ChunkFilter(equals=((("kind",), "page"),), alive_at=1.0)
    for reader in (StoreReader(store, dataset_ids), StoreReader(store, dataset_ids, where=bound)):
        for query in QUERIES:
            vector = np.asarray(engine.embedder.embed([query])[0], dtype=np.float32)
            for k in (1, 3, 50):
                dense = await reader.dense_chunks(vector, k)
                assert await reader.dense_places(vector, k) == [_place(h) for h in dense]
                lexical = await reader.lexical_chunks(query, k)
                assert await reader.lexical_places(query, k) == [_place(h) for h in lexical]
        ids = [r.id for r in store.index.records()][::3]
        for neighbours in (0, 1, 2):
            around = await reader.chunks_by_id(ids, neighbours=neighbours)
            assert around and not (neighbours == 0 and len(around) > len(ids))
            places = await reader.places_by_id(ids, neighbours=neighbours)
            assert places == [_place(h) for h in around]


def _every_phrase(text: str, index: dict[str, list[str]]) -> list[tuple[str, list[str]]]:
    """``named_in`` as it was: every phrase of up to MAX_WORDS words looked up."""
    from recall_engine.read.titles import _WORD

    words = _WORD.findall(text)
    lowered = [w.lower() for w in words]
    named = [w[0].isupper() or w[0].isdigit() for w in words]
    found: dict[str, list[str]] = {}
    for size in range(min(MAX_WORDS, len(words)), 0, -1):
        for at in range(len(words) - size + 1):
            phrase = " ".join(lowered[at : at + size])
            if phrase in index and phrase not in found and any(named[at : at + size]):
                found[phrase] = index[phrase]
    return list(found.items())


async def test_title_lookup_finds_what_every_phrase_lookup_finds(engine):
    store, _ = await _corpus(engine)
    built = title_index(store)
    plain = dict(built)
    assert {"pixel", "lyon", "berlin marathon"} <= set(built)
    texts = [*QUERIES, *(t for _, t in TURNS), *(t for _, t in DOCS), "", "lyon pixel"]
    texts.append("The Berlin Marathon, Pixel and LYON: Berlin marathon again, lyon.")
    for text in texts:
        expected = _every_phrase(text, plain)
        assert named_in(text, built) == expected
        assert named_in(text, plain) == expected


def test_with_score_builds_what_model_copy_builds():
    ref = EntityRef(id="e1", name="Ada", type="PERSON")
    hits = [
        ChunkHit(
            score=0.3,
            chunk_id="c",
            data_id="d",
            chunk_index=2,
            text="t",
            document_name="n",
            metadata={"k": [1]},
        ),
        TripletHit(score=0.1, id="r", source=ref, predicate="knows", target=ref, context="x"),
        EntityHit(score=2.0, id="e1", name="Ada", type="PERSON"),
        RowHit(score=0.5, values={"a": 1}),
    ]
    for hit in hits:
        for score in (0.75, 1, -0.0):
            copied, expected = hit.with_score(score), hit.model_copy(update={"score": score})
            assert copied == expected and repr(copied) == repr(expected)
            assert copied.model_dump_json() == expected.model_dump_json()
            assert copied.model_fields_set == expected.model_fields_set
            assert copied.__dict__ is not hit.__dict__ and hit.score != score
            with pytest.raises(Exception, match="frozen"):
                copied.score = 1.0
