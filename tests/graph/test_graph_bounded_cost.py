"""The rules extractor's work on adversarial text grows with the text, not its
square: counted (characters a pattern scans) or bounded by a generous regex
``timeout`` that the old patterns ran past by hours, never timed."""

from __future__ import annotations

from datetime import datetime

import pytest
import regex

from recall_engine.core.graph import EntityType
from recall_engine.graph import ChunkInput, GraphExtraction, RuleBasedExtractor
from recall_engine.graph import rules as rules_module
from recall_engine.graph.rules_entities import _BOUNDARY, split_sentences

GENEROUS_S = 20.0


def _chunk(text: str) -> ChunkInput:
    return ChunkInput(chunk_id="c1", text=text, timestamp=datetime(2024, 5, 1), dataset_id="d")


def _triples(graph: GraphExtraction) -> set[tuple[str, str, str]]:
    names = {e.id: e.name for e in graph.entities}
    return {(names[r.source_id], r.predicate, names[r.target_id]) for r in graph.relations}


def test_a_long_run_of_full_stops_is_scanned_once() -> None:
    for text in ("a" + "." * 200_000 + "a", "a" + "?!…" * 60_000 + "a"):
        assert list(_BOUNDARY.finditer(text, timeout=GENEROUS_S)) == []


def test_runs_of_marks_still_end_sentences() -> None:
    text = 'Wait... What?!" Yes… Dr. Who left.'
    assert [text[s:e] for s, e in split_sentences(text)] == [
        "Wait...",
        'What?!"',
        "Yes…",
        "Dr. Who left.",
    ]


class _CountingPattern:
    """Stands in for a compiled pattern and counts the characters searched."""

    def __init__(self, pattern: regex.Pattern[str]) -> None:
        self.pattern = pattern
        self.scanned = 0

    def search(self, text: str, pos: int = 0, endpos: int | None = None) -> object:
        end = len(text) if endpos is None else endpos
        self.scanned += end - pos
        return self.pattern.search(text, pos, end)


def test_a_sentence_of_many_dates_is_read_for_future_words_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    counting = _CountingPattern(rules_module._FUTURE)
    monkeypatch.setattr(rules_module, "_FUTURE", counting)
    text = "We met " + ", ".join(f"on {1 + n % 28} May {1990 + n % 30}" for n in range(300))
    RuleBasedExtractor().extract_chunk(_chunk(text))
    assert 0 < counting.scanned <= len(text)


def _dates(text: str) -> list[str]:
    graph = GraphExtraction.from_chunks([RuleBasedExtractor().extract_chunk(_chunk(text))])
    return sorted(e.name for e in graph.entities if e.type is EntityType.DATE)


def test_each_sentence_still_reads_its_dates_ahead_or_back() -> None:
    # 1 May 2024 is a Wednesday: a future sentence's Friday comes after it, a past one's before
    text = "Ann will fly to Lyon on Friday and on Sunday. Bo flew to Oslo on Friday."
    assert _dates(text) == ["2024-04-26", "2024-05-03", "2024-05-05"]


def test_coordinated_relations_take_the_latest_subject() -> None:
    text = "Ann lives in Paris and works for Acme Corp and works for Globex Inc."
    graph = GraphExtraction.from_chunks([RuleBasedExtractor().extract_chunk(_chunk(text))])
    assert _triples(graph) == {
        ("Ann", "lives_in", "Paris"),
        ("Ann", "works_for", "Acme Corp"),
        ("Ann", "works_for", "Globex Inc"),
    }
