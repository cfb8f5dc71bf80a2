"""A question about now: periods are opened by changes of the aspect it asks about."""

from __future__ import annotations

from datetime import datetime

from recall_engine.core.facts import Fact
from recall_engine.core.hits import ChunkHit
from recall_engine.core.models import SourceRef
from recall_engine.pipeline.tense_rank import rank_present
from recall_engine.pipeline.tense_state import Tense
from router.tense import TenseReading


def _hit(name: str, when: str) -> ChunkHit:
    ref = SourceRef(
        data_id=name, chunk_id=name, chunk_index=0, document_name=name, dataset_id="d",
        dataset_name="d",
    )  # fmt: skip
    return ChunkHit(
        score=1.0, sources=(ref,), chunk_id=name, data_id=name, chunk_index=0, text=name,
        document_name=name, timestamp=when,
    )  # fmt: skip


def _fact(fid: str, family: str, obj: str, start: str, end: str | None) -> Fact:
    return Fact(
        id=fid, subject="Ann", subject_id="ann", predicate=family, object=obj, object_id=obj,
        family=family, valid_from=datetime.fromisoformat(start),
        valid_until=datetime.fromisoformat(end) if end else None, current=end is None,
    )  # fmt: skip


def _order(facts: list[Fact]) -> list[str]:
    hits = [_hit("a", "2023-02-01T10:00:00"), _hit("b", "2023-06-01T10:00:00")]
    hits.append(_hit("c", "2023-07-01T10:00:00"))
    terms = {"a": frozenset({"work"}), "b": frozenset({"work"}), "c": frozenset({"walk"})}
    tense = Tense(TenseReading("present", fired=("present.now",)), facts=facts, family="job")
    ranked = rank_present([(h, 1.0) for h in hits], tense, {}, lambda h: terms[h.text])
    return [h.text for h, _, _ in ranked]


def test_another_aspects_change_does_not_split_the_asked_aspects_period():
    job = [
        _fact("j1", "job", "nurse", "2022-01-01", "2023-01-01"),
        _fact("j2", "job", "developer", "2023-01-01", None),
    ]
    assert _order(job) == ["a", "b", "c"]  # both said since the job changed: as ranked
    mood = [
        _fact("m1", "mood", "calm", "2023-01-01", "2023-04-01"),
        _fact("m2", "mood", "tired", "2023-04-01", None),
    ]
    assert _order(job + mood) == ["a", "b", "c"]


def test_a_later_change_of_the_asked_aspect_still_puts_what_follows_first():
    job = [
        _fact("j1", "job", "nurse", "2022-01-01", "2023-04-01"),
        _fact("j2", "job", "developer", "2023-04-01", None),
    ]
    assert _order(job) == ["b", "a", "c"]
