"""What a question asks, without the names of the people who say the stored turns.

A conversation turn is stored and embedded as "Speaker said: text", so every turn of
a speaker carries their name. A question that names a speaker ("What does Ann do to
relax?") matches all of their turns alike on that name, which pulls its vector away
from what it asks; who said a turn is the graph search's speaker signal already. The
passage lane of the graph search therefore searches with the question's vector plus
the vector of what remains once the speakers' names and the question's own words
(the question word, its auxiliaries) are taken out ("to relax"), both of unit length.
A question that names no speaker, and every question over documents (no speakers),
searches with its own vector alone. Measured, and the variants not kept:
``docs/decisions.md``.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Collection

import numpy as np

from recall_engine.read.api import ChunkReads

_QUESTION = re.compile(
    r"^\s*(?:what|which|where|who|whom|whose|when|why|how(?:\s+(?:many|much|long|often|old))?)"
    r"\b(?:\s+(?:kinds?|types?|sorts?)\s+of\b)?",
    re.I,
)
_AUXILIARY = re.compile(r"\b(?:does|do|did|is|are|was|were|has|have|had)\b", re.I)


def content_query(question: str, speakers: Collection[str]) -> str | None:
    """``question`` without the names of ``speakers`` (whole words, possessives
    included, any case) and its question words; None when it names none of them or
    nothing is left.

    Args:
        question: the question.
        speakers: the names of the people who say the stored turns.

    Returns:
        The rest of the question, or None.
    """
    names = sorted({n.strip() for n in speakers if n.strip()}, key=len, reverse=True)
    if not names:
        return None
    pattern = r"\b(?:" + "|".join(re.escape(n) for n in names) + r")(?:['’]s?)?(?!\w)"
    rest, found = re.subn(pattern, " ", question, flags=re.I)
    if not found:
        return None
    rest = _AUXILIARY.sub(" ", _QUESTION.sub(" ", rest.strip().rstrip("?")))
    rest = " ".join(rest.split())
    return rest or None


async def companion_query(question: str, config: object, read: ChunkReads) -> str | None:
    """The rest of ``question`` a retriever of ``config`` will embed (when its
    ``speaker_free_lane`` is on), so the pipeline can embed it with the question in
    one model call; None when it will embed none.

    Args:
        question: the question.
        config: the retriever's typed config.
        read: the read API of the caller's scope (its speakers).

    Returns:
        The rest (``content_query``), or None.
    """
    if not getattr(config, "speaker_free_lane", False):
        return None
    return content_query(question, await read.speakers())


async def passage_vector(
    question: str,
    vector: np.ndarray,
    config: object,
    read: ChunkReads,
    embed: Callable[[str], Awaitable[np.ndarray]],
) -> np.ndarray:
    """The vector the passage lane searches with (module docstring).

    Args:
        question: the question.
        vector: its embedding (unit length).
        config: the search's config (its ``speaker_free_lane``).
        read: the read API of the caller's scope (its speakers).
        embed: embeds a text (the recall's query embedder, cached).

    Returns:
        ``vector`` itself, or the unit sum of it and the rest's embedding.
    """
    rest = await companion_query(question, config, read)
    if rest is None:
        return vector
    total = np.asarray(vector, dtype=np.float32) + np.asarray(await embed(rest), dtype=np.float32)
    norm = float(np.linalg.norm(total))
    return vector if norm == 0 else total / norm
