"""``TenantReader``: the read API plus the searches HydraDB-style recall needs
beyond recall()'s lanes (which it shares: ``full_recall`` runs the passage lane on
this reader, bound to the request's filter).

Boolean search is exact lexical matching (any term, all terms, or the phrase);
the filter (exact metadata equality, expiry) is a row mask applied inside the
search, so ``k`` results come back whenever ``k`` chunks match. Everything stays
inside the reader's dataset scope.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Literal

import numpy as np
import regex

from recall_engine.core.errors import InvalidInputError
from recall_engine.core.hits import ChunkHit
from recall_engine.read.filters import ChunkFilter
from recall_engine.read.store_reader import StoreReader
from recall_engine.storage.graph_reads import DocumentRecord
from recall_engine.storage.lexical import tokenize


class TenantReader(StoreReader):
    """``StoreReader`` plus boolean chunk search, term statistics and the chunks of
    whole data items."""

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
        """The live chunks of these data items (those in scope that the reader's
        filter passes), item by item in chunk order."""
        index = self._store.index
        scope = set(self._scope)
        return [
            self._chunk_hit(record, 1.0)
            for data_id in dict.fromkeys(data_ids)
            for record in index.of_data(data_id)
            if record.dataset_id in scope and self._allows(record)
        ]

    async def documents(self) -> list[DocumentRecord]:
        """The data items of the scope's datasets, dataset by dataset."""

        def read() -> list[DocumentRecord]:
            return [d for ds in self._scope for d in self._store.graph.documents(ds)]

        return await asyncio.to_thread(read)

    async def documents_page(
        self, *, skip: int = 0, limit: int | None = None, source_prefix: str | None = None
    ) -> list[DocumentRecord]:
        """The data items of the scope's one dataset in listing order (created_at, then
        id): ``limit`` of them (None: all) after the first ``skip``; with
        ``source_prefix``, only those whose source id starts with it. Ordered and cut
        in the store: the rows returned are the rows read.

        Raises:
            InvalidInputError: the scope is not one dataset.
        """
        dataset_id = self._one_dataset()
        return await asyncio.to_thread(
            self._store.graph.documents_page,
            dataset_id,
            skip=skip,
            limit=limit,
            source_prefix=source_prefix,
        )

    async def documents_matching(
        self,
        *,
        ids: Sequence[str] | None = None,
        holding: Sequence[tuple[str, str]] = (),
        also_prefix: str | None = None,
    ) -> list[DocumentRecord]:
        """The data items of the scope's one dataset, in listing order, whose source id
        is one of ``ids`` (None: any) and whose metadata holds each ``(key, string
        value)`` pair of ``holding``, and every item with no source id or one that
        starts with ``also_prefix``. Chosen in the store where it can: a superset
        (the caller checks the values), whose rows are the rows read.

        Raises:
            InvalidInputError: the scope is not one dataset.
        """
        return await asyncio.to_thread(
            self._store.graph.documents_matching,
            self._one_dataset(),
            ids=ids,
            holding=holding,
            also_prefix=also_prefix,
        )

    async def document_count(self) -> int:
        """How many data items the scope's one dataset holds: a count query, no row read.

        Raises:
            InvalidInputError: the scope is not one dataset.
        """
        return await asyncio.to_thread(self._store.graph.document_count, self._one_dataset())

    async def documents_before(self, keys: Sequence[tuple[str, str]]) -> list[int]:
        """For each (created_at, id) of ``keys``, how many data items of the scope's one
        dataset ``documents_page`` orders before it: one query, no row read.

        Raises:
            InvalidInputError: the scope is not one dataset.
        """
        dataset_id = self._one_dataset()
        return await asyncio.to_thread(self._store.graph.documents_before, dataset_id, keys)

    def _one_dataset(self) -> str:
        if len(self._scope) != 1:
            raise InvalidInputError(
                f"a listing reads one dataset, and this reader's scope holds {len(self._scope)}; "
                "read each dataset through a reader of its own."
            )
        return self._scope[0]

    async def data_ids_of_sources(self, source_ids: Sequence[str]) -> dict[str, str]:
        """Source id -> data id, for the items of the scope that declare these sources."""
        if not source_ids:
            return {}

        def read() -> dict[str, str]:
            found: dict[str, str] = {}
            for dataset_id in self._scope:
                found.update(self._store.graph.documents_by_source(dataset_id, source_ids))
            return found

        return await asyncio.to_thread(read)

    async def term_frequencies(self, text: str) -> dict[str, int]:
        """Each term of ``text`` (as BM25 tokenizes it) -> how many chunks in scope contain it."""
        terms = tokenize(text)
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
