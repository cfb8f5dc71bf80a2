"""Node sets: named groups that remember(..., node_set=[...]) puts data items in.

A data item's node sets are stored with it, in its metadata under
``NODE_SET_KEY`` (so in every chunk's metadata, in LanceDB and on the Kuzu
Document node), which keeps them durable without another table. Content that
is already stored in a dataset keeps the node sets it was first stored with.
CODING_RULES reads the ``coding_agent_rules`` set; ``ReadAPI.chunks_in_node_sets``
reads any.
"""

from __future__ import annotations

from collections.abc import Sequence

import regex

from recall_engine.core.errors import InvalidInputError
from recall_engine.ingest.sources import SourceItem

NODE_SET_KEY = "node_set"
_NAME = regex.compile(r"^[\p{L}\p{N}_][\p{L}\p{N}_ .@:+-]{0,127}$")


def check_node_sets(value: object) -> tuple[str, ...]:
    """The node set names of a remember() call, each once, in order (None: none).

    Raises:
        InvalidInputError: not a list of names of 1-128 letters, digits, spaces or _.@:+-.
    """
    if value is None:
        return ()
    if isinstance(value, str) or not isinstance(value, Sequence):
        raise InvalidInputError(
            f"node_set must be a list of names such as ['coding_agent_rules'], got {value!r}."
        )
    names = list(value)
    for name in names:
        if not isinstance(name, str) or not _NAME.match(name) or name != name.strip():
            raise InvalidInputError(
                f"node_set name {name!r} is not allowed: use 1-128 letters, digits, spaces "
                "or _.@:+- (e.g. 'coding_agent_rules')."
            )
    if not names:
        raise InvalidInputError("node_set is an empty list; pass None or at least one name.")
    return tuple(dict.fromkeys(names))


def apply_node_sets(items: Sequence[SourceItem], node_sets: Sequence[str]) -> None:
    """Record ``node_sets`` in every item's metadata (nothing when empty)."""
    if not node_sets:
        return
    for item in items:
        item.metadata = {**item.metadata, NODE_SET_KEY: list(node_sets)}
