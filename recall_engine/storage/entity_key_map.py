"""Entity lookup keys as an in-memory map, rebuilt once per commit generation.

Kuzu has no index on ``Entity.keys`` (a ``KEY_SEP``-joined string,
``kuzu_entity_lists``), so a lookup by key in Cypher splits and compares every
stored key of every entity: on a document corpus with tens of thousands of
entities that is a scan per name a question names, paid on every recall. A
``KeyMap`` is that scan done once: key -> the rows of the entities carrying it.
``KeyMapCache`` keeps the map of the store's current commit generation (the
counter every committed write bumps) and builds a new one on the first lookup
after a write, so a lookup never returns what the store held before its last
commit.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Sequence

from recall_engine.core.cells import Cell
from recall_engine.storage.graph_reads import EntityRecord, entity_record_from_row

KEY_MAP_COLUMNS = "e.keys, e.id, e.name, e.type, e.description, e.aliases, e.dataset_id"
"""What ``KeyMap.build`` reads per entity: its encoded keys, then
``graph_reads.ENTITY_RECORD_COLUMNS``."""


class KeyMap:
    """Lookup key -> entities (rows in ``ENTITY_RECORD_COLUMNS`` order)."""

    def __init__(self, rows: Iterable[Sequence[Cell]], separator: str) -> None:
        """Index ``rows`` (``KEY_MAP_COLUMNS`` order) by each key of their first column,
        split on ``separator``; a row without keys (null) is found by none."""
        self._rows: dict[str, tuple[object, ...]] = {}
        self._by_key: dict[str, list[str]] = {}
        for keys, *record in rows:
            if keys is None:
                continue
            entity_id = record[0]
            self._rows[entity_id] = tuple(record)
            for key in dict.fromkeys(keys.split(separator)):
                self._by_key.setdefault(key, []).append(entity_id)

    def __len__(self) -> int:
        return len(self._rows)

    def lookup(self, keys: Iterable[str], dataset_ids: Iterable[str]) -> list[EntityRecord]:
        """Entities of ``dataset_ids`` with one of ``keys``, each once, ordered by id."""
        scope = set(dataset_ids)
        found = {i for key in set(keys) for i in self._by_key.get(key, ())}
        rows = [self._rows[i] for i in sorted(found)]
        return [entity_record_from_row(row) for row in rows if row[5] in scope]


class KeyMapCache:
    """The ``KeyMap`` of one store's current generation (thread-safe).

    ``get`` takes the generation before it reads, so a map read while a write
    commits is filed under the older generation and replaced on the next call.
    Two threads that find no current map may both build one; the later wins.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._cached: tuple[int, KeyMap] | None = None

    def get(self, generation: int, build: Callable[[], KeyMap]) -> KeyMap:
        """The map of ``generation``, built by ``build`` unless it is held already."""
        with self._lock:
            cached = self._cached
        if cached is not None and cached[0] == generation:
            return cached[1]
        built = build()
        with self._lock:
            if self._cached is None or self._cached[0] <= generation:
                self._cached = (generation, built)
        return built

    def clear(self) -> None:
        """Forget the map (the next ``get`` builds one)."""
        with self._lock:
            self._cached = None
