"""Offline summaries of data items: extractive, and labelled so.

Without an LLM a summary is the item's leading sentences (a document) or its
participants and first turns (a conversation), capped in length. It is stored
with ``method="extractive-lead"`` so no one mistakes it for a written summary.
"""

from __future__ import annotations

from collections.abc import Sequence

from recall_engine.graph.rules_entities import split_sentences

MAX_SENTENCES = 3
MAX_CHARS = 400
MAX_TURNS = 3


def extractive_summary(
    text: str | None = None,
    *,
    turns: Sequence[tuple[str | None, str]] = (),
    max_chars: int = MAX_CHARS,
) -> str:
    """The lead of a document, or ``"Conversation between A and B (n messages).
    A: ...  B: ..."`` for conversation ``turns`` of (speaker, text)."""
    if turns:
        speakers = list(dict.fromkeys(s for s, _ in turns if s))
        head = f"Conversation between {_join(speakers)}" if speakers else "Conversation"
        lines = [f"{head} ({len(turns)} messages)."]
        for speaker, said in turns[:MAX_TURNS]:
            said = " ".join(said.split())
            lines.append(f"{speaker}: {said}" if speaker else said)
        return _cap(" ".join(lines), max_chars)
    sentences = [s for s in _sentences(text or "") if s]
    return _cap(" ".join(sentences[:MAX_SENTENCES]), max_chars)


def _sentences(text: str) -> list[str]:
    head = text[: 20 * MAX_CHARS]  # the lead is all we need of a long document
    return [" ".join(head[start:end].split()) for start, end in split_sentences(head)]


def _join(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _cap(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    cut = text[: limit - 1].rsplit(" ", 1)[0] or text[: limit - 1]
    return cut.rstrip(" ,;:") + "…"
