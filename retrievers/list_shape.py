"""Questions that ask for a list, and their rankings spread over sessions.

A list question ("What activities does Ann do?", "Which cities has Ann visited?",
"What are Ann's hobbies?") is answered by items stated over time, often one or two in
each conversation session. Ranked by similarity alone, its best chunks crowd into the
one session that talks about the topic most, and the items stated on other days fall
below the cut. ``spread_sessions`` re-ranks the best chunks
so that each further chunk of a session already chosen counts ``SESSION_DECAY`` of its
score per chunk of that session before it: a turn of another session that states an
item moves up past the third turn on the same topic. A session is a conversation's day
(the chunks of one data item stated on one date) or, for chunks without a time, their
document. Measured, and the decays tried: ``docs/decisions.md``.
"""

from __future__ import annotations

import re

from retrievers.graph_steps import ChunkRanking

_AUX = r"(?:has|have|does|do)"
LIST_SHAPE = re.compile(
    # what/which + a plural noun (or "kinds of X") + has/have/does/do: "What books has Ann read?"
    r"^\s*(?:what|which)\s+(?:(?:kinds|types|sorts)\s+of\s+[a-z\-]+"
    r"|(?:(?:kind|type|sort)\s+of\s+)?(?:[a-z\-]+\s+){0,2}[a-z\-]*[^s\s']s)\s+" + _AUX + r"\b"
    # a perfect that gathers over time: "What has Ann painted?", "Where has Ann camped?"
    r"|^\s*(?:what|which|where|who)\s+(?:has|have)\s+(?!(?:[A-Z][\w'\-]*\s+)?been\b)"
    # "What are Ann's hobbies?", "What are some changes ...?"
    r"|^\s*what\s+are\s+(?:some\s+)?(?:[A-Z][a-z]+'s?\s+)?(?:the\s+)?(?:[a-z]+\s+)?[a-z]+s\b",
    re.I,
)
"""A question that asks for every item of a kind (see the module docstring)."""

SESSION_DECAY = 0.85
"""A chunk's share of its score for each chunk of its session ranked before it."""

SPREAD_WINDOW = 30
"""How many of the best chunks are re-ranked (the rest keep their places)."""


def list_shaped(question: str) -> bool:
    """Whether ``question`` asks for a list of items (``LIST_SHAPE``).

    Args:
        question: the question text.

    Returns:
        True for "What activities does Ann do?", False for "What did Ann paint?".
    """
    return LIST_SHAPE.search(question) is not None


def spread_sessions(ranking: ChunkRanking) -> int:
    """Re-rank the best ``SPREAD_WINDOW`` chunks of ``ranking`` in place, greedily:
    each next chunk is the one whose score times ``SESSION_DECAY`` to the power of
    the chunks of its session chosen before it is highest (ties: the earlier rank).
    The window's scores are kept, in descending order, and given out in the new
    order, so scores still fall down the ranking.

    Args:
        ranking: the graph search's ranked chunks (``ranked`` and ``chunk_score`` are
            changed).

    Returns:
        How many chunks changed place.
    """
    head = ranking.ranked[:SPREAD_WINDOW]
    score = ranking.chunk_score
    chosen: list[str] = []
    taken: dict[tuple[str, str], int] = {}
    left = list(head)

    def worth(chunk_id: str) -> float:
        return score[chunk_id] * SESSION_DECAY ** taken.get(_session(ranking, chunk_id), 0)

    while left:
        best = max(left, key=worth)
        left.remove(best)
        chosen.append(best)
        key = _session(ranking, best)
        taken[key] = taken.get(key, 0) + 1
    scores = sorted((score[c] for c in head), reverse=True)
    for chunk_id, value in zip(chosen, scores, strict=True):
        score[chunk_id] = value
    ranking.ranked[: len(head)] = chosen
    return sum(1 for a, b in zip(head, chosen, strict=True) if a != b)


def _session(ranking: ChunkRanking, chunk_id: str) -> tuple[str, str]:
    hit = ranking.chunk_of[chunk_id]
    return hit.data_id, (hit.timestamp or "")[:10]
