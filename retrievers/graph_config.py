"""``GraphSearchConfig``: the options of the graph search every graph-completion
variant runs (``retrievers.graph_search``)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from retrievers.layout import PASSAGES_AHEAD
from retrievers.passages import PassageConfig


class GraphSearchConfig(PassageConfig):
    """Options shared by the graph-completion family (recall() fills the first four);
    the passage lane's options are inherited from ``PassageConfig``."""

    wide_search_top_k: int = Field(default=100, ge=1, le=10_000)
    triplet_distance_penalty: float = Field(default=6.5, ge=0)
    node_name: tuple[str, ...] | None = Field(
        default=None, description="Restrict to the node sets (entity names) named here."
    )
    node_name_filter_operator: Literal["OR", "AND"] = "OR"
    entity_weight: float = Field(
        default=0.05,
        ge=0,
        description="Flat bonus of chunks mentioning an entity the query names, other than "
        "a person who speaks in the candidates (speaker_boost links those); a tie-breaker "
        "(why so small: docs/decisions.md).",
    )
    question_weight: float = Field(
        default=0.5,
        ge=0,
        le=1,
        description="A chunk's score times (1 - this x the share of its words in sentences "
        "that ask): a turn that asks repeats the question's words but does not answer it.",
    )
    replies_answer: bool = Field(
        default=True,
        description="What a turn loses for asking goes to its reply (the next turn, said by "
        "someone else), among the neighbour_seeds turns that lose most "
        "(retrievers.graph_turns).",
    )
    speaker_boost: float = Field(
        default=0.3,
        ge=0,
        description="Chunks said by a person the query names score (1 + this) times more: "
        "what a person did is told in their own turns, not in the turns addressing them.",
    )
    speaker_free_lane: bool = Field(
        default=True,
        description="The passage lane also searches with what the question asks without the "
        "names of the people who say the stored turns (retrievers.content_query): every turn "
        "of a speaker carries their name.",
    )
    triplet_weight: float = Field(
        default=0.2, ge=0, description="Bonus of chunks stating a relation near the query."
    )
    relation_lane_k: int = Field(
        default=10,
        ge=0,
        description="Relations that lend a bonus: as many as the passages listed ahead "
        "(20 lent to more chunks stating loosely related facts on large graphs).",
    )
    damping: float = Field(default=0.5, gt=0, lt=1, description="PageRank continue probability.")
    walk_weight: float = Field(
        default=0.5,
        ge=0,
        description="Weight of the passage-entity walk's passage scores: raise it for "
        "multi-hop questions, 0 skips the walk (cheaper).",
    )
    entity_seed_weight: float = Field(
        default=1.0,
        ge=0,
        description="Walk restart mass of an entity the query names, times 1/degree: "
        "lower it when named entities are common across the corpus.",
    )
    include_passages: bool = Field(default=True, description="Interleave passages with triplets.")
    projection_k: int = Field(
        default=25,
        ge=1,
        le=1000,
        description="Nearest entities and relations that seed the PageRank, and best chunks "
        "whose relations are projected and may be listed (not top_k: see retrievers.layout).",
    )
    triplets_k: int = Field(
        default=6,
        ge=0,
        description="Triplets listed beside the passages (whatever top_k is); 0 lists "
        "passages only.",
    )
    passages_ahead: int = Field(
        default=PASSAGES_AHEAD, ge=0, description="Best passages listed before any triplet."
    )
