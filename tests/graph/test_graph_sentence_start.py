"""Sentence-initial names: "Lovelace's notes ..." opening a sentence is a mention
when the chunk or the dataset knows a Lovelace, and common words never are."""

from __future__ import annotations

import pytest

from recall_engine.graph import ChunkInput, Entity, EntityType, RuleBasedExtractor, resolve
from recall_engine.graph.stage import draft_graph, promote_candidates

T = EntityType
NS = "t/ds"


def _extract(text: str, i: int = 0):
    return RuleBasedExtractor().extract_chunk(ChunkInput(chunk_id=f"c{i}", text=text, namespace=NS))


def test_surname_of_a_person_in_the_same_chunk_is_a_name() -> None:
    x = _extract("Dr. Ada Lovelace wrote the first program. Lovelace's notes describe it.")
    assert {"Ada Lovelace", "Lovelace"} <= {e.name for e in x.entities}
    assert not x.candidates
    (ada,) = [e for e in resolve([x]).graph.entities if "lovelace" in e.normalized_name]
    assert ada.name == "Ada Lovelace" and "Lovelace" in ada.aliases


def test_an_unknown_sentence_initial_word_is_set_aside_not_extracted() -> None:
    x = _extract("Lovelace's notes describe the first algorithm. Painting is fun.")
    assert not x.entities and not x.mentions
    assert sorted(c.entity.name for c in x.candidates) == ["Lovelace", "Painting"]
    assert x.candidates[0].mention.surface == "Lovelace's"


@pytest.mark.parametrize(
    "text",
    [
        "Today's plan is simple.",
        "Everyone's notes were lost.",
        "Nobody's perfect.",
        "Yesterday's talk was long.",
        "Everything's fine.",
        "Life's too short.",
        "OK.",
    ],
)
def test_common_sentence_starts_are_neither_names_nor_candidates(text: str) -> None:
    x = _extract(text)
    assert not x.entities and not x.candidates


def test_a_set_aside_word_becomes_a_mention_in_another_document_of_the_dataset() -> None:
    first = _extract("Dr. Ada Lovelace wrote the first program.", 0)
    later = _extract("Lovelace's notes describe the first algorithm.", 1)
    draft = draft_graph([first, later], dataset_id="ds", candidates=lambda keys: [])
    graph = draft.resolution.graph
    (ada,) = [e for e in graph.entities if "lovelace" in e.normalized_name]
    assert ada.name == "Ada Lovelace"
    assert {m.chunk_id for m in graph.mentions if m.entity_id == ada.id} == {"c0", "c1"}


def test_stored_entities_of_the_dataset_claim_set_aside_words() -> None:
    stored = Entity.create("Ada Lovelace", T.PERSON, namespace=NS)
    asked: list[str] = []

    def candidates(keys):
        asked.extend(keys)
        return [stored] if "lovelace" in keys else []

    draft = draft_graph(
        [_extract("Lovelace's notes describe the first algorithm.")],
        dataset_id="ds",
        candidates=candidates,
    )
    assert "lovelace" in asked
    assert draft.resolution.updated_ids == (stored.id,)  # gained the alias "Lovelace"
    assert [m.entity_id for m in draft.resolution.graph.mentions] == [stored.id]


def test_concepts_and_unrelated_names_do_not_claim() -> None:
    painting = Entity.create("Painting", T.CONCEPT, namespace=NS)
    town = Entity.create("Woodhaven", T.PLACE, namespace=NS)
    x = _extract("Painting is fun. Lovelace's notes are long. Woodhaven is lovely.")
    assert not x.mentions
    (promoted,) = promote_candidates([x], known=[painting, town])
    assert [(m.surface, m.entity_id) for m in promoted.mentions] == [
        ("Woodhaven", Entity.create("Woodhaven", T.CONCEPT, namespace=NS).id)
    ]  # a CONCEPT mention that resolution folds into the place
    assert resolve([promoted], existing=[town]).id_map[promoted.mentions[0].entity_id] == town.id
