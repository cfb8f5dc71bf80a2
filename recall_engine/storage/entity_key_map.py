"""Entity lookup keys as an in-memory map, rebuilt once per commit generation.

Kuzu has no index on ``Entity.keys`` (a ``KEY_SEP``-joined string,
``kuzu_entity_lists``), so a lookup by key in Cypher splits and compares every
stored key of every entity: on a document corpus with tens of thousands of
entities that is a scan per name a question names, paid on every recall. A
``KeyMap`` is that scan done once: key -> the rows of the entities carrying it.
``KeyMapCache`` keeps the map of the store's current commit generation (the
counter every committed write bumps) and builds a new one on the first lookup
after a write, so a lookup never returns what the store held before its last
commit; a writer that knows which entities its commit wrote and removed hands
the next generation's map over instead (``advance``: the old map with those
entities read again), so a lookup after an ingest does not read every entity.
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
        self._separator = separator
        self._rows: dict[str, tuple[object, ...]] = {}
        self._keys: dict[str, tuple[str, ...]] = {}
        self._by_key: dict[str, list[str]] = {}
        for keys, *record in rows:
            if keys is None:
                continue
            entity_id = record[0]
            self._rows[entity_id] = tuple(record)
            self._keys[entity_id] = own = tuple(dict.fromkeys(keys.split(separator)))
            for key in own:
                self._by_key.setdefault(key, []).append(entity_id)

    def __len__(self) -> int:
        return len(self._rows)

    def updated(self, rows: Iterable[Sequence[Cell]], gone: Iterable[str] = ()) -> KeyMap:
        """A new map: this one with the entities of ``rows`` (``KEY_MAP_COLUMNS``
        order, as read after a write) in place of what it held of them, and the
        entities ``gone`` left out. This map is left as it is."""
        new = KeyMap((), self._separator)
        new._rows, new._keys, new._by_key = dict(self._rows), dict(self._keys), dict(self._by_key)
        changed: dict[str, tuple[tuple[str, ...], tuple[object, ...]] | None] = {
            entity_id: None for entity_id in gone
        }
        for keys, *record in rows:  # an entity without keys is found by none
            own = () if keys is None else tuple(dict.fromkeys(keys.split(self._separator)))
            changed[record[0]] = (own, tuple(record)) if own else None
        for entity_id, now in changed.items():
            for key in new._keys.pop(entity_id, ()):
                left = [i for i in new._by_key[key] if i != entity_id]
                if left:
                    new._by_key[key] = left
                else:
                    del new._by_key[key]
            new._rows.pop(entity_id, None)
            if now is not None:
                new._keys[entity_id], new._rows[entity_id] = now
                for key in now[0]:
                    new._by_key[key] = [*new._by_key.get(key, ()), entity_id]
        return new

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

    def advance(self, before: int, after: int, update: Callable[[KeyMap], KeyMap]) -> None:
        """File ``update(map)`` as generation ``after``'s map when the map held is
        generation ``before``'s (the commit between them wrote what ``update``
        applies); else leave it to the next ``get`` to build."""
        with self._lock:
            cached = self._cached
        if cached is None or cached[0] != before:
            return
        advanced = update(cached[1])
        with self._lock:
            if self._cached is cached:
                self._cached = (after, advanced)

    def clear(self) -> None:
        """Forget the map (the next ``get`` builds one)."""
        with self._lock:
            self._cached = None
