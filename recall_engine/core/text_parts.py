"""A part of a text given as character ranges: its type and its words."""

from __future__ import annotations

Spans = tuple[tuple[int, int], ...]
"""Character ranges (start, end) of a text, in order."""


def part_text(text: str, spans: Spans) -> str:
    """The words of ``text`` within ``spans``, joined by single spaces.

    Args:
        text: the whole text.
        spans: character ranges of it.

    Returns:
        The part's words; empty when the ranges hold none.
    """
    return " ".join(" ".join(text[start:end].split()) for start, end in spans).strip()
