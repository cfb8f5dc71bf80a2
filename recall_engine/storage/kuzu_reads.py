"""Kuzu's Cypher for the typed reads of ``GraphStore`` (``graph_reads`` records).

A mixin of ``KuzuGraphStore``: every query runs through its ``read`` (the read
connection, which never waits for an ingest's open transaction) and its rows
become records here, so no positional row leaves the storage package.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence

from recall_engine.core.cells import Row
from recall_engine.storage.entity_key_map import KEY_MAP_COLUMNS, KeyMap, KeyMapCache
from recall_engine.storage.graph_reads import (
    EDGE_COLUMNS,
    ENTITY_RECORD_COLUMNS,
    EdgeRecord,
    EntityRecord,
    MentionLink,
    TableSchema,
    edge_from_row,
    entity_record_from_row,
)
from recall_engine.storage.kuzu_entity_lists import KEY_SEP

_EDGE_MATCH = "MATCH (a:Entity)-[r:RELATES]->(b:Entity) "
_EDGE_RETURN = f"RETURN {EDGE_COLUMNS} ORDER BY r.id"
_KEY_MAPS_LOCK = threading.Lock()


class KuzuReads:
    """Typed graph reads over ``read`` (implemented by ``KuzuGraphStore``)."""

    def read(self, query: str, params: dict[str, object] | None = None) -> list[Row]:
        raise NotImplementedError  # pragma: no cover - KuzuGraphStore.read

    @property
    def generation(self) -> int:
        raise NotImplementedError  # pragma: no cover - KuzuGraphStore.generation

    def _edges(
        self, where: str, ids: Sequence[str], dataset_ids: Sequence[str]
    ) -> list[EdgeRecord]:
        ids, scope = list(dict.fromkeys(ids)), list(dict.fromkeys(dataset_ids))
        if not ids or not scope:
            return []
        rows = self.read(
            f"{_EDGE_MATCH}WHERE ({where}) AND r.dataset_id IN $ds {_EDGE_RETURN}",
            {"ids": ids, "ds": scope},
        )
        return [edge_from_row(row) for row in rows]

    def edges_by_id(
        self, relation_ids: Sequence[str], dataset_ids: Sequence[str]
    ) -> list[EdgeRecord]:
        """These relations (those of ``dataset_ids``), ordered by id."""
        return self._edges("r.id IN $ids", relation_ids, dataset_ids)

    def edges_touching(
        self, entity_ids: Sequence[str], dataset_ids: Sequence[str]
    ) -> list[EdgeRecord]:
        """Relations of ``dataset_ids`` with either end in ``entity_ids``, ordered by id."""
        return self._edges("a.id IN $ids OR b.id IN $ids", entity_ids, dataset_ids)

    def edges_from(self, entity_ids: Sequence[str], dataset_ids: Sequence[str]) -> list[EdgeRecord]:
        """Relations of ``dataset_ids`` whose source is in ``entity_ids``, ordered by
        id (a lookup of the sources, not a scan of the relation table as an
        either-end read is)."""
        return self._edges("a.id IN $ids", entity_ids, dataset_ids)

    def edges_in_chunks(
        self, chunk_ids: Sequence[str], dataset_ids: Sequence[str]
    ) -> list[EdgeRecord]:
        """Relations of ``dataset_ids`` extracted from these chunks, ordered by id."""
        return self._edges("r.chunk_id IN $ids", chunk_ids, dataset_ids)

    def edges_of_datasets(self, dataset_ids: Sequence[str]) -> list[EdgeRecord]:
        """Every relation of ``dataset_ids``, ordered by id."""
        scope = list(dict.fromkeys(dataset_ids))
        if not scope:
            return []
        rows = self.read(f"{_EDGE_MATCH}WHERE r.dataset_id IN $ds {_EDGE_RETURN}", {"ds": scope})
        return [edge_from_row(row) for row in rows]

    def entities_by_keys(
        self, keys: Sequence[str], dataset_ids: Sequence[str]
    ) -> list[EntityRecord]:
        """Entities of ``dataset_ids`` with one of these lookup keys (normalised name,
        alias or surname), each once, ordered by id.

        Served from the key map of the current commit generation
        (``entity_key_map``): the first lookup after a write reads every entity
        once, later ones cost a dict lookup per key, not a scan of the table.
        """
        keys, scope = sorted(set(keys)), list(dict.fromkeys(dataset_ids))
        if not keys or not scope:
            return []
        return self._key_maps().get(self.generation, self._build_key_map).lookup(keys, scope)

    def entities_by_keys_scan(
        self, keys: Sequence[str], dataset_ids: Sequence[str]
    ) -> list[EntityRecord]:
        """``entities_by_keys`` as one Cypher scan of the entity table, without the
        key map (what the map must agree with)."""
        keys, scope = sorted(set(keys)), list(dict.fromkeys(dataset_ids))
        if not keys or not scope:
            return []
        rows = self.read(
            "MATCH (e:Entity) WHERE e.dataset_id IN $ds UNWIND string_split(e.keys, $sep) AS key "
            "WITH e, key WHERE key IN $keys "
            "RETURN DISTINCT " + ENTITY_RECORD_COLUMNS + " "
            "ORDER BY e.id",
            {"ds": scope, "keys": keys, "sep": KEY_SEP},
        )
        return [entity_record_from_row(r) for r in rows]

    def _key_maps(self) -> KeyMapCache:
        cache = self.__dict__.get("_key_map_cache")
        if cache is None:
            with _KEY_MAPS_LOCK:
                cache = self.__dict__.setdefault("_key_map_cache", KeyMapCache())
        return cache

    def _build_key_map(self) -> KeyMap:
        return KeyMap(self.read(f"MATCH (e:Entity) RETURN {KEY_MAP_COLUMNS}"), KEY_SEP)

    def mention_links(self, chunk_ids: Sequence[str] | None = None) -> list[MentionLink]:
        """Every (chunk, entity) mention of the tenant (of these chunks only, when
        given), each once, by chunk then entity."""
        params: dict[str, object] | None = None
        if chunk_ids is None:
            where = ""
        elif chunk_ids:
            where, params = "WHERE c.id IN $ids ", {"ids": sorted(set(chunk_ids))}
        else:
            return []
        rows = self.read(
            f"MATCH (c:Chunk)-[:MENTIONS]->(e:Entity) {where}"
            "RETURN DISTINCT c.id, e.id, e.dataset_id ORDER BY c.id, e.id",
            params,
        )
        return [MentionLink(chunk_id=c, entity_id=e, dataset_id=d) for c, e, d in rows]

    def graph_schema(self) -> list[TableSchema]:
        """The node and relationship tables, by name, with their properties."""
        out = []
        for name, kind in self.read("CALL show_tables() RETURN name, type ORDER BY name"):
            props = tuple(
                (p[0], p[1]) for p in self.read(f"CALL table_info('{name}') RETURN name, type")
            )
            if kind == "REL":
                ends = self.read(f"CALL show_connection('{name}') RETURN *")
                out.append(TableSchema(name, "REL", props, tuple((e[0], e[1]) for e in ends)))
            else:
                out.append(TableSchema(name, "NODE", props))
        return out
