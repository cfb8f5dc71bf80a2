"""The one type for values a store hands back untyped.

A Kuzu, FalkorDB, LanceDB or SQL result cell holds whatever its column holds (str,
int, float, bool, datetime, list, dict or None): the query that named the column
knows, the checker cannot. Readers take rows as ``Sequence[Cell]`` and decode them
into typed records at once (``edge_from_row``, ``entity_from_row``, ...), so the
untyped values stop at the storage boundary instead of spreading through the reads.
"""

from __future__ import annotations

from typing import Any

Cell = Any
"""One stored value; its type is its column's, so it is genuinely arbitrary here."""
Row = list[Cell]
"""One result row of a graph or SQL query, in the query's column order."""
Record = dict[str, Cell]
"""One stored row by column name (a Lance table row, a Kuzu node's properties)."""
