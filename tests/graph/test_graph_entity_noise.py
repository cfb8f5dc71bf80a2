"""Entity noise the rules no longer make: bare common nouns, lone letters, plural
weekdays, name fragments, heading words, and two names run together."""

from __future__ import annotations

import pytest

from recall_engine.graph import ChunkInput, GraphExtraction, RuleBasedExtractor
from recall_engine.graph.rules_entities import bare_common_noun


def _graph(
    extractor: RuleBasedExtractor, text: str, speaker: str | None = "Mel"
) -> GraphExtraction:
    chunk = ChunkInput(chunk_id="c", text=text, speaker=speaker)
    return GraphExtraction.from_chunks([extractor.extract_chunk(chunk)])


def _names(graph: GraphExtraction) -> set[str]:
    return {e.name for e in graph.entities}


def _triples(graph: GraphExtraction) -> set[tuple[str, str, str]]:
    names = {e.id: e.name for e in graph.entities}
    return {(names[r.source_id], r.predicate, names[r.target_id]) for r in graph.relations}


def test_a_bare_common_noun_object_is_not_an_entity(extractor) -> None:
    graph = _graph(
        extractor,
        "I went to the beach. I made a bowl in my class. I joined a gym. "
        "I joined a pottery class. Ada is a mathematician. We moved to the U.S. in May.",
    )
    names = _names(graph)
    assert not names & {"beach", "bowl", "gym", "U"}
    triples = _triples(graph)
    assert ("Mel", "joined", "pottery class") in triples  # a phrase says which
    assert ("Ada", "is_a", "mathematician") in triples  # a class, shared on purpose


@pytest.mark.parametrize(
    ("predicate", "phrase", "dropped"),
    [
        ("visited", "beach", True),
        ("created", "painting", True),
        ("visited", "X", True),
        ("visited", "stained glass window", False),
        ("visited", "paris", False),  # a known place, even in lowercase
        ("is_a", "veteran", False),
        ("works_as", "nurse", False),
        ("owns", "Tesla", False),  # capitalised: the name pass decides
    ],
)
def test_bare_common_noun(predicate: str, phrase: str, dropped: bool) -> None:
    assert bare_common_noun(predicate, phrase) is dropped


def test_lone_letters_and_plural_weekdays_are_not_entities(extractor) -> None:
    names = _names(
        _graph(
            extractor,
            "Have you read all of George R. R. Martin's books? My favourite is by J.K. "
            "Rowling. Grace works remotely on Fridays and Mondays; we got some R&R.",
        )
    )
    assert not {n for n in names if len(n) == 1}
    assert not names & {"Fridays", "Mondays"}
    assert {"Rowling", "Grace"} <= names  # "J.K." ends no sentence


def test_connectors_stay_inside_a_name(extractor) -> None:
    names = _names(
        _graph(
            extractor,
            "I'm a huge fan of Lord of the Rings! She studied at the University of Oxford "
            "and works at the Bank of England. Game of Thrones is next.",
        )
    )
    assert {"Lord of the Rings", "University of Oxford", "Bank of England"} <= names
    assert "Game of Thrones" in names
    assert not names & {"Lord", "Rings", "University", "Oxford", "Bank", "Game", "Thrones"}


def test_a_markdown_heading_word_and_a_repeated_word(extractor) -> None:
    # How a Markdown file reaches the extractor: its heading run into the paragraph.
    text = "# Notes on Grace Grace Hopper prefers tea. # Team handbook Ada leads the team."
    names = _names(_graph(extractor, text, speaker=None))
    assert {"Grace", "Grace Hopper", "Ada"} <= names
    assert not names & {"Grace Grace Hopper", "Notes", "Team"}


def test_a_speaker_named_like_a_noise_word_is_kept(extractor) -> None:
    names = _names(_graph(extractor, "Thanks, Wed! See you on Fridays.", speaker="Wed"))
    assert "Wed" in names and "Fridays" not in names
