"""Who says a conversation turn, as a graph-search signal.

A question that names a person who speaks in the candidate turns is told in that
person's own turns (nearly all the evidence of multi-hop questions), not in the
turns that address them; ``graph_search`` lifts the former by ``speaker_boost``.
"""

from __future__ import annotations

from recall_engine.core.hits import ChunkHit, EntityRef
from recall_engine.core.names import normalize_name


def speaking(
    linked: set[str], refs: dict[str, EntityRef], chunk_of: dict[str, ChunkHit]
) -> set[str]:
    """The normalised names of the linked entities that say some candidate chunk."""
    said_by = {normalize_name(h.speaker) for h in chunk_of.values() if h.speaker}
    names = {normalize_name(refs[e].name) for e in linked if e in refs}
    return names & said_by


def speaker_boost(
    chunk_score: dict[str, float],
    chunk_of: dict[str, ChunkHit],
    speakers: set[str],
    boost: float,
) -> dict[str, float]:
    """Scores of the chunks said by one of ``speakers`` (normalised names) times
    ``1 + boost``. Multiplicative, so a turn of the other speaker that matches the
    question better still outranks a weak turn of the named one (an adversarial
    question names the wrong person)."""
    return {
        c: value * (1 + boost)
        if chunk_of[c].speaker and normalize_name(chunk_of[c].speaker or "") in speakers
        else value
        for c, value in chunk_score.items()
    }
