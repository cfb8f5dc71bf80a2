"""The vector of a part of a query: some of its words, as the model read them in it.

The graph search also searches with what a question asks without the names of the
people who speak (``retrievers.content_query``): a part of the question, given as
character ranges. An embedder that can (``embed_with_parts``: both backends, for a
model that mean-pools its tokens) pools that part's token states from the question's
own forward pass (``common.pooled_part``), so the part costs no second model call and
the question's vector comes from the same pass. Any other embedder embeds the part's
words as a text of their own, in one model call with the question when neither is
cached. Both vectors are cached per process: the question's in ``QUERY_CACHE``, the
part's in ``PART_CACHE``. Several queries with parts (concurrent requests) share one
forward pass where the embedder has ``embed_many_with_parts`` (``embed_query_parts``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import cast

import numpy as np

from recall_engine.core.text_parts import Spans, part_text
from recall_engine.embedding.common import QUERY_CACHE, QueryCache
from recall_engine.embedding.embedder import Embedder, embed_queries, wrapped_method

PART_CACHE = QueryCache()
"""Part vectors kept per process, keyed by the model and (spans, text)."""

PartsMethod = Callable[[str, Sequence[tuple[int, int]]], tuple[np.ndarray, np.ndarray | None]]
ManyPartsMethod = Callable[
    [Sequence[tuple[str, Sequence[tuple[int, int]]]]], list[tuple[np.ndarray, np.ndarray | None]]
]


def parts_method(embedder: Embedder) -> PartsMethod | None:
    """The embedder's ``embed_with_parts`` (through wrappers, which keep the model's
    query vectors), or None when its model cannot pool a part."""
    return cast("PartsMethod | None", wrapped_method(embedder, "embed_with_parts"))


def cached_part(embedder: Embedder, text: str, spans: Spans) -> np.ndarray | None:
    """The part's vector when this process has it, else None; computes nothing."""
    return PART_CACHE.get(embedder.model_id, _key(text, spans))


def embed_query_part(embedder: Embedder, text: str, spans: Spans) -> np.ndarray:
    """The unit vector of the part of query ``text`` within ``spans`` (module docstring).

    Args:
        embedder: the engine's embedder.
        text: the query.
        spans: the part's character ranges (non-empty, within ``text``).

    Returns:
        The part's vector (1-D, unit length, read-only). The query's own vector is
        cached too, when one forward pass gave both.

    Raises:
        EmbeddingError: the model failed to load or run.
    """
    model = embedder.model_id
    key = _key(text, spans)
    hit = PART_CACHE.get(model, key)
    if hit is not None:
        return hit
    part: np.ndarray | None = None
    method = parts_method(embedder)
    if method is not None:
        whole, part = method(text, spans)
        QUERY_CACHE.put(model, text, whole)
    if part is None:
        words = part_text(text, spans)
        part = embed_queries(embedder, [text, words])[words]
    return PART_CACHE.put(model, key, part)


def embed_query_parts(embedder: Embedder, items: Sequence[tuple[str, Spans]]) -> None:
    """Cache the vectors of several queries and of their parts: those not cached in
    one forward pass of them all where the embedder has ``embed_many_with_parts``,
    else one ``embed_query_part`` each (concurrent requests, ``tenants.batching``).

    Raises:
        EmbeddingError: the model failed to load or run.
    """
    model = embedder.model_id
    missing = list({(t, s): None for t, s in items if cached_part(embedder, t, s) is None})
    many = cast("ManyPartsMethod | None", wrapped_method(embedder, "embed_many_with_parts"))
    if many is not None and len(missing) > 1:
        for (text, spans), (whole, part) in zip(missing, many(missing), strict=True):
            QUERY_CACHE.put(model, text, whole)
            if part is not None:
                PART_CACHE.put(model, _key(text, spans), part)
    for text, spans in missing:  # one alone, a part no token fell in, or no batch method
        embed_query_part(embedder, text, spans)


def _key(text: str, spans: Spans) -> str:
    return f"{spans!r}\x00{text}"
