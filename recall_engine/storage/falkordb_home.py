"""Which graph a tenant store was made with, so that a data dir and a graph that
do not belong together are never opened as one.

With ``graph_url`` the graph and the data dir live apart, and a store that
opens on the wrong pair would go wrong quietly: vectors whose items the graph
does not know are removed as leftovers of a crashed ingest (a data dir made on
Kuzu, opened with a graph URL, or one opened with another prefix, would lose
every vector), and a new data dir beside a graph that holds items would skip
them all as already remembered while it holds none of their chunks. So the
store's ``store.json`` records its graph (``"kuzu"``, or ``"falkordb:<graph
name>"``; stores made before it have Kuzu), and both cases are refused.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from recall_engine.core.errors import ConfigError
from recall_engine.storage.falkordb_server import SETTING, FalkorServer

if TYPE_CHECKING:
    from recall_engine.storage.protocols import GraphStore

KUZU = "kuzu"


def graph_home(server: FalkorServer | None, store_name: str) -> str:
    """What ``store.json`` records as the graph of the store ``store_name``."""
    return KUZU if server is None else f"falkordb:{server.graph_name(store_name)}"


def check_home(meta: Mapping[str, object], home: str, *, tenant_id: str) -> None:
    """Refuse to open a store against another graph than the one it was made with.

    Raises:
        ConfigError: naming both graphs and what to do.
    """
    made = str(meta.get("graph", KUZU))
    if made == home:
        return
    shown = {KUZU: "the Kuzu graph in the data dir"}
    raise ConfigError(
        f"The store of tenant {tenant_id!r} was made with {shown.get(made, made)!s}, but this "
        f"engine's graph is {shown.get(home, home)!s}. Opening it there would drop its vectors "
        f"as leftovers: set {SETTING} as it was when the store was made (or unset it), or use "
        "a new data dir and remember() the data again."
    )


def check_unclaimed(graph: GraphStore, *, tenant_id: str) -> None:
    """Refuse a new data dir with vectors of its own beside a server graph that
    already holds items (remembered through another data dir).

    Raises:
        ConfigError: the graph holds items.
    """
    held = len(graph.document_ids())
    if held:
        raise ConfigError(
            f"The graph of tenant {tenant_id!r} on the graph server already holds {held} "
            "item(s), remembered through another data dir, whose vectors are not in this "
            f"one. Replicas that share a graph must share vectors too: set vector_uri "
            "($RECALL_ENGINE_VECTOR_URI); or open the data dir that made them, or give "
            f"{SETTING} a prefix of its own (?prefix=NAME)."
        )
