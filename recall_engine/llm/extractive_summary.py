"""Offline answers to "Summarize X.": an extractive summary of the best item.

The item is the best-ranked one whose text or document name shares most of the
question's terms (the thing to summarise is named in the question); its data
item's chunks in the context (and any the caller fetched, e.g. its neighbours)
are read in order. The summary keeps the opening sentence and the sentences most
central to the item (summed in-item frequency of their terms, per sqrt of length),
up to ``MAX_SUMMARY_SENTENCES``, in their original order.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence

from recall_engine.core.hits import AnyHit, ChunkHit
from recall_engine.llm.extractive import Evidence, item_sentences, provenance, terms

MAX_SUMMARY_SENTENCES = 4


def _item_key(item: AnyHit) -> str | None:
    return provenance(item)[0]


def best_item(question: str, items: Sequence[AnyHit]) -> AnyHit | None:
    """The item the question names best (ties: the better ranked)."""
    wanted = set(terms(question))
    best: tuple[float, int] | None = None
    chosen = None
    for rank, item in enumerate(items):
        if not item_sentences(item):
            continue
        name = item.document_name if isinstance(item, ChunkHit) else ""
        share = len(wanted & set(terms(f"{name} {item.text}"))) / (len(wanted) or 1)
        key = (share, -rank)
        if best is None or key > best:
            best, chosen = key, item
    return chosen


def summary_evidence(question: str, items: Sequence[AnyHit]) -> list[Evidence]:
    """The summary sentences of the best item, in document order (maybe none)."""
    item = best_item(question, items)
    if item is None:
        return []
    data_id = _item_key(item)
    parts = [i for i in items if data_id is not None and _item_key(i) == data_id] or [item]
    chunks = {getattr(p, "chunk_id", None) or str(n): p for n, p in enumerate(parts)}
    ordered = sorted(chunks.values(), key=lambda p: getattr(p, "chunk_index", 0))
    sentences: list[tuple[str, AnyHit]] = []
    for part in ordered:
        sentences += [(s, part) for s in item_sentences(part)]
    if not sentences:
        return []
    frequency = Counter(t for s, _ in sentences for t in set(terms(s)))

    def centrality(sentence: str) -> float:
        words = set(terms(sentence))
        return sum(frequency[t] for t in words) / math.sqrt(len(words) or 1)

    keep = {0} | set(
        sorted(range(1, len(sentences)), key=lambda i: -centrality(sentences[i][0]))[
            : MAX_SUMMARY_SENTENCES - 1
        ]
    )
    out = []
    for index in sorted(keep):
        sentence, part = sentences[index]
        part_data, part_chunk = provenance(part)
        out.append(
            Evidence(
                sentence=sentence,
                item_index=list(items).index(part) if part in items else len(items),
                score=round(centrality(sentence), 6),
                data_id=part_data,
                chunk_id=part_chunk,
                dataset_id=part.dataset_id,
                dataset_name=part.dataset_name,
                role="summary",
            )
        )
    return out
