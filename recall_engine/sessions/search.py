"""Keyword search over a session's cached entries.

A query's words (stopwords removed, stemmed) are weighted by how rare they are
among the session's entries, so one word that every entry shares cannot make a
hit on its own; a word counts fully when the question or answer holds it and
half when only the stored context does. An entry is a hit when the words it
holds carry at least ``MIN_MATCH`` of the query's weight.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from recall_engine.sessions.store import QARecord
from recall_engine.storage.lexical import tokenize

MIN_MATCH = 0.6
CONTEXT_FACTOR = 0.5


def search_entries(
    query: str, entries: Sequence[QARecord], *, top_k: int
) -> list[tuple[QARecord, float]]:
    """The entries that match ``query``, best first (newest first on ties), at most
    ``top_k``, each with its match share in (0, 1]."""
    terms = set(tokenize(query))
    if not terms or not entries:
        return []
    fields = [
        (set(tokenize(f"{e.question}\n{e.answer}")), set(tokenize(e.context))) for e in entries
    ]
    n = len(entries)
    weight = {
        t: math.log(1.0 + (n + 1) / (sum(t in main or t in ctx for main, ctx in fields) + 0.5))
        for t in terms
    }
    total = sum(weight.values())
    hits = []
    for position, (entry, (main, ctx)) in enumerate(zip(entries, fields, strict=True)):
        got = sum(
            w * (1.0 if t in main else CONTEXT_FACTOR if t in ctx else 0.0)
            for t, w in weight.items()
        )
        share = got / total
        if share >= MIN_MATCH:
            hits.append((share, position, entry))
    hits.sort(key=lambda h: (-h[0], -h[1]))
    return [(entry, round(share, 4)) for share, _, entry in hits[:top_k]]
