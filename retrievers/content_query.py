"""What a question asks, without the names of the people who say the stored turns.

A conversation turn is stored and embedded as "Speaker said: text", so every turn of
a speaker carries their name. A question that names a speaker ("What does Ann do to
relax?") matches all of their turns alike on that name, which pulls its vector away
from what it asks; who said a turn is the graph search's speaker signal already. The
passage lane of the graph search therefore searches with the question's vector plus
the vector of what remains once the speakers' names and the question's own words
(the question word, its auxiliaries) are taken out ("to relax"), both of unit length.
That rest is a part of the question (``rest_spans``): where the model allows, its
vector is pooled from the question's own forward pass (``embedding.parts``), so it
costs no second model call. A question that names no speaker, and every question
over documents (no speakers), searches with its own vector alone. Measured, and the
variants not kept: ``docs/decisions.md``.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Collection
from typing import NamedTuple

import numpy as np

from recall_engine.core.text_parts import Spans, part_text
from recall_engine.read.api import ChunkReads

_QUESTION = re.compile(
    r"^\s*(?:what|which|where|who|whom|whose|when|why|how(?:\s+(?:many|much|long|often|old))?)"
    r"\b(?:\s+(?:kinds?|types?|sorts?)\s+of\b)?",
    re.I,
)
_AUXILIARY = re.compile(r"\b(?:does|do|did|is|are|was|were|has|have|had)\b", re.I)
_ASKED = re.compile(r"\?+\s*$")
_WORD = re.compile(r"\S+")

EmbedPart = Callable[[str, Spans], Awaitable[np.ndarray]]
"""(text, character ranges of it) -> the unit vector of that part of the text."""


def rest_spans(question: str, speakers: Collection[str]) -> Spans | None:
    """The character ranges of ``question`` left once the names of ``speakers`` (whole
    words, possessives included, any case) and its question words are taken out, one
    per word; None when it names none of them or nothing is left.

    Args:
        question: the question.
        speakers: the names of the people who say the stored turns.

    Returns:
        The rest's (start, end) ranges, in order, or None.
    """
    names = sorted({n.strip() for n in speakers if n.strip()}, key=len, reverse=True)
    if not names:
        return None
    pattern = r"\b(?:" + "|".join(re.escape(n) for n in names) + r")(?:['’]s?)?(?!\w)"
    blank = list(question)  # what is taken out becomes spaces: offsets stay put

    def take_out(match: re.Match[str]) -> None:
        blank[match.start() : match.end()] = " " * (match.end() - match.start())

    found = list(re.finditer(pattern, question, flags=re.I))
    if not found:
        return None
    for match in found:
        take_out(match)
    for expression in (_ASKED, _QUESTION):
        if (asked := expression.search("".join(blank))) is not None:
            take_out(asked)
    for match in list(_AUXILIARY.finditer("".join(blank))):
        take_out(match)
    spans = tuple(m.span() for m in _WORD.finditer("".join(blank)))
    return spans or None


def content_query(question: str, speakers: Collection[str]) -> str | None:
    """The words of ``rest_spans``: ``question`` without the names of ``speakers`` and
    its question words ("What does Ann do to relax?" -> "to relax"); None when it names
    none of them or nothing is left."""
    spans = rest_spans(question, speakers)
    return None if spans is None else part_text(question, spans)


class Lane(NamedTuple):
    """What the passage lane searches with, and the rest behind it."""

    vector: np.ndarray
    rest: str | None
    """The words of the question's rest the vector holds; None: the question alone."""


async def passage_vector(
    question: str,
    vector: np.ndarray,
    config: object,
    read: ChunkReads,
    embed_part: EmbedPart,
) -> Lane:
    """The vector the passage lane searches with (module docstring).

    Args:
        question: the question.
        vector: its embedding (unit length).
        config: the search's config (its ``speaker_free_lane``).
        read: the read API of the caller's scope (its speakers).
        embed_part: embeds a part of the question (the recall's, cached).

    Returns:
        ``vector`` itself, or the unit sum of it and the rest's vector, with the rest.
    """
    if not getattr(config, "speaker_free_lane", False):
        return Lane(vector, None)
    spans = rest_spans(question, await read.speakers())
    if spans is None:
        return Lane(vector, None)
    total = np.asarray(vector, dtype=np.float32) + np.asarray(
        await embed_part(question, spans), dtype=np.float32
    )
    norm = float(np.linalg.norm(total))
    return Lane(vector, None) if norm == 0 else Lane(total / norm, part_text(question, spans))
