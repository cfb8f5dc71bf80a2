"""``TenantReader``: the read API plus the searches HydraDB-style recall needs.

Hybrid search scores every chunk in scope twice, by cosine similarity and by
BM25, normalises both to [0, 1] over the chunks that pass the filter, and blends
them with ``alpha``; the filter (exact metadata equality, expiry) is a row mask
applied inside the search, so ``k`` results come back whenever ``k`` chunks
match. Boolean search is exact lexical matching (any term, all terms, or the
phrase). Both stay inside the reader's dataset scope.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from typing import Any, Literal

import numpy as np
import regex
from pydantic import BaseModel, ConfigDict, Field

from recall_engine.core.hits import ChunkHit
from recall_engine.read.fusion import alpha_weights, join_lanes, normalise
from recall_engine.read.store_reader import StoreReader
from recall_engine.storage.expiry import expiry_of
from recall_engine.storage.lexical import tokenize

_TIE = 1e-6  # the other lane breaks ties at the extremes of alpha


class ChunkFilter(BaseModel):
    """Which chunks a search may return: AND of exact equalities, and not expired."""

    model_config = ConfigDict(frozen=True)

    equals: tuple[tuple[tuple[str, ...], Any], ...] = Field(
        default=(), description="(path into chunk metadata, value) pairs, all required."
    )
    alive_at: float | None = Field(
        default=None, description="Epoch seconds: chunks expired by then are left out."
    )

    def matches(self, metadata: Mapping[str, Any]) -> bool:
        for path, value in self.equals:
            found: Any = metadata
            for key in path:
                if not isinstance(found, Mapping) or key not in found:
                    return False
                found = found[key]
            if not _equal(found, value):
                return False
        return True


def _equal(stored: Any, wanted: Any) -> bool:
    if isinstance(stored, bool) or isinstance(wanted, bool):
        return stored is wanted or (type(stored) is type(wanted) and stored == wanted)
    return bool(stored == wanted)


class HybridHit(BaseModel):
    """A chunk with its blended score and both normalised lanes."""

    model_config = ConfigDict(frozen=True)

    chunk: ChunkHit
    score: float
    dense: float = Field(description="Cosine similarity, min-max normalised over the matches.")
    lexical: float = Field(description="BM25 divided by the best BM25 among the matches.")


class TenantReader(StoreReader):
    """``StoreReader`` plus hybrid and boolean chunk search, chunk relations and
    the chunks of whole data items."""

    def _mask(self, where: ChunkFilter | None) -> np.ndarray:
        index = self._store.index
        mask = index.vectors.scope_mask(self._scope)
        if where is None:
            return mask
        if where.alive_at is not None:
            mask &= expiry_of(index) > where.alive_at
        if where.equals:
            for at in np.flatnonzero(mask):
                if not where.matches(index.vectors.row(int(at)).metadata):
                    mask[at] = False
        return mask

    async def hybrid_chunks(
        self,
        vector: np.ndarray,
        query: str,
        k: int,
        *,
        alpha: float,
        where: ChunkFilter | None = None,
    ) -> list[HybridHit]:
        """The ``k`` best chunks by ``alpha * dense + (1 - alpha) * lexical``, both
        normalised over the chunks that pass ``where``; 0 ranks by BM25 alone
        (chunks sharing no term last), 1 by meaning alone."""
        return await asyncio.to_thread(self._hybrid, vector, query, k, alpha, where)

    def _hybrid(
        self, vector: np.ndarray, query: str, k: int, alpha: float, where: ChunkFilter | None
    ) -> list[HybridHit]:
        index = self._store.index
        with index.vectors.lock:
            mask = self._mask(where)
            rows = np.flatnonzero(mask)
            if rows.size == 0 or k <= 0:
                return []
            dense = index.vectors.similarities(vector, rows).astype(np.float64)
            lexical = index.lexical.scores(tokenize(query), mask)[rows].astype(np.float64)
            dense_n = normalise(dense, "min_max")
            lexical_n = normalise(lexical, "by_best")
            dense_w, lexical_w = alpha_weights(alpha)
            blended = join_lanes(
                [dense_n, lexical_n], [dense_w + _TIE, lexical_w + _TIE], ["none", "none"]
            )
            blended /= 1.0 + 2 * _TIE
            order = np.lexsort((rows, -blended))[:k]
            return [
                HybridHit(
                    chunk=self._chunk_hit(index.vectors.row(int(rows[i])), float(blended[i])),
                    score=float(blended[i]),
                    dense=float(dense_n[i]),
                    lexical=float(lexical_n[i]),
                )
                for i in order
            ]

    async def boolean_chunks(
        self,
        query: str,
        k: int,
        *,
        operator: Literal["or", "and", "phrase"] = "or",
        where: ChunkFilter | None = None,
    ) -> list[ChunkHit]:
        """Chunks that contain any query term (``or``), every term (``and``) or the
        exact phrase (``phrase``, case and punctuation aside), best BM25 first."""
        return await asyncio.to_thread(self._boolean, query, k, operator, where)

    def _boolean(
        self, query: str, k: int, operator: str, where: ChunkFilter | None
    ) -> list[ChunkHit]:
        index = self._store.index
        terms = list(dict.fromkeys(tokenize(query)))
        if not terms or k <= 0:
            return []
        with index.vectors.lock:
            mask = self._mask(where)
            scores = index.lexical.scores(terms, mask)
            hit = mask & (scores > 0)
            if operator in ("and", "phrase"):
                for term in terms:
                    hit &= index.lexical.scores([term], mask) > 0
            rows = np.flatnonzero(hit)
            rows = rows[np.lexsort((rows, -scores[rows]))]
            phrase = _phrase_key(query) if operator == "phrase" else None
            out: list[ChunkHit] = []
            for at in rows:
                record = index.vectors.row(int(at))
                if phrase is not None and phrase not in _phrase_key(record.text):
                    continue
                out.append(self._chunk_hit(record, float(scores[at])))
                if len(out) >= k:
                    break
            return out

    async def chunks_of_data(self, data_ids: Sequence[str]) -> list[ChunkHit]:
        """The live chunks of these data items (those in scope), item by item in
        chunk order."""
        index = self._store.index
        scope = set(self._scope)
        return [
            self._chunk_hit(record, 1.0)
            for data_id in dict.fromkeys(data_ids)
            for record in index.of_data(data_id)
            if record.dataset_id in scope
        ]

    async def term_frequencies(self, terms: Sequence[str]) -> dict[str, int]:
        """Term (already tokenized) -> how many chunks in scope contain it."""
        index = self._store.index
        with index.vectors.lock:
            mask = index.vectors.scope_mask(self._scope)
            return {
                t: int((index.lexical.scores([t], mask) > 0).sum()) for t in dict.fromkeys(terms)
            }

    async def count(self) -> int:
        """Live chunks in scope."""
        return int(self._store.index.vectors.scope_mask(self._scope).sum())


_NON_WORD = regex.compile(r"[^\p{L}\p{N}]+")


def _phrase_key(text: str) -> str:
    """Lowercase words joined by single spaces, padded so matches fall on word edges."""
    words = _NON_WORD.sub(" ", text.lower()).strip()
    return f" {words} "
