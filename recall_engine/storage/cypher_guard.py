"""Checks on caller-written Cypher before the read-only Kuzu handle runs it.

The read-only handle refuses every write itself; these checks add what it does
not cover and give each refusal a clear message:

- one statement per query;
- no statement that reaches outside the graph: files (LOAD FROM, COPY, EXPORT,
  IMPORT), extensions (INSTALL, LOAD EXTENSION), other databases (ATTACH, USE),
  transactions and checkpoints, or settings (``CALL threads=4``); Kuzu runs
  several of these even on a read-only database;
- ``CALL`` only for the schema table functions in ``ALLOWED_CALLS``;
- functions that build values outside Kuzu's buffer pool in one step, so that
  neither the pool limit nor the query timeout can stop them: ``range``,
  ``repeat``, ``lpad`` and ``rpad`` need literal arguments and together may
  produce at most ``MAX_GENERATED`` values; ``list_transform``,
  ``list_reduce`` and list concatenation functions are refused.

Keywords are matched as whole words outside string literals, comments and
backtick-quoted names; property names (``n.set``), labels and parameters are
not keywords.
"""

from __future__ import annotations

import re

from recall_engine.core.errors import InvalidInputError

MAX_GENERATED = 1_000_000
"""Values (list items or characters) that literal generators may produce, multiplied."""
MAX_QUERY_CHARS = 20_000

WRITE_CLAUSES = frozenset(
    {"CREATE", "MERGE", "SET", "DELETE", "REMOVE", "DROP", "ALTER", "COMMENT", "DETACH"}
)
OUTSIDE_CLAUSES = frozenset(
    {
        "LOAD",
        "COPY",
        "EXPORT",
        "IMPORT",
        "INSTALL",
        "UNINSTALL",
        "ATTACH",
        "USE",
        "CHECKPOINT",
        "BEGIN",
        "COMMIT",
        "ROLLBACK",
    }
)
ALLOWED_CALLS = frozenset({"show_tables", "table_info", "show_connection", "db_version"})
GENERATORS = frozenset({"range", "repeat", "lpad", "rpad"})
REFUSED_FUNCTIONS = frozenset(
    {"list_transform", "list_reduce", "list_concat", "list_cat", "array_concat", "array_cat"}
)

_LITERALS = re.compile(
    r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"|`[^`]*`|//[^\n]*|/\*.*?\*/", re.DOTALL
)
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_INT = re.compile(r"^\s*-?\s*\d+\s*$")
_STRING_ARG = re.compile(r"^\s*'(\d+)'\s*$")


def check_read_query(query: str) -> None:
    """Refuse ``query`` unless it is one read-only statement within the limits above.

    Raises:
        InvalidInputError: naming the clause or function that is refused and why.
    """
    if len(query) > MAX_QUERY_CHARS:
        raise InvalidInputError(
            f"Cypher query is {len(query)} characters long; the limit is {MAX_QUERY_CHARS}."
        )
    text = _mask(query)
    if ";" in text.rstrip().rstrip(";"):
        raise InvalidInputError("Cypher search runs one statement at a time; remove the ';'.")
    for match in _WORD.finditer(text):
        word, start, end = match.group(0), match.start(), match.end()
        before = text[:start].rstrip()[-1:]
        after = text[end:].lstrip()[:1]
        if before in (".", ":", "$") or after == ":":
            continue  # a property, label, parameter or map key, not a keyword
        upper, lower = word.upper(), word.lower()
        if upper in WRITE_CLAUSES:
            raise InvalidInputError(
                f"Cypher search is read-only: {upper} changes the graph. Use remember() or "
                "forget() to change what is stored."
            )
        if upper in OUTSIDE_CLAUSES:
            raise InvalidInputError(
                f"Cypher search reads the graph only: {upper} reaches files, extensions, other "
                "databases or transactions, which recall() never does."
            )
        if upper == "CALL":
            _check_call(text[end:])
        elif after == "(" and lower in REFUSED_FUNCTIONS:
            raise InvalidInputError(
                f"{lower}() is not allowed in Cypher search: it can build values outside the "
                "query's memory limit. Return the items and combine them in your code."
            )
    _check_generators(text)


def _mask(query: str) -> str:
    """``query`` with comments removed, names in backticks replaced by ``_``, and
    each string literal replaced by ``'<its length>'``."""

    def replace(match: re.Match[str]) -> str:
        token = match.group(0)
        if token.startswith(("//", "/*")):
            return " "
        if token.startswith("`"):
            return "_"
        return f"'{len(token) - 2}'"

    return _LITERALS.sub(replace, query)


def _check_call(rest: str) -> None:
    match = re.match(r"\s*([A-Za-z_][A-Za-z0-9_]*)\s*(\(|=)?", rest)
    name = match.group(1).lower() if match else ""
    if match is None or match.group(2) != "(" or name not in ALLOWED_CALLS:
        allowed = ", ".join(sorted(ALLOWED_CALLS))
        raise InvalidInputError(
            f"Cypher search allows CALL only for {allowed} (schema look-ups); "
            f"CALL {name or '...'} is refused."
        )


def _arguments(text: str, open_at: int) -> list[str]:
    """The top-level comma-separated arguments of the call whose '(' is at ``open_at``."""
    depth, start, args = 0, open_at + 1, []
    for at in range(open_at, len(text)):
        char = text[at]
        if char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
            if depth == 0:
                args.append(text[start:at])
                return args
        elif char == "," and depth == 1:
            args.append(text[start:at])
            start = at + 1
    raise InvalidInputError("Cypher query has an unclosed '(' .")


def _check_generators(text: str) -> None:
    total = 1
    for match in re.finditer(r"\b([A-Za-z_]+)\s*\(", text):
        name = match.group(1).lower()
        if name not in GENERATORS or text[: match.start()].rstrip().endswith("."):
            continue
        args = _arguments(text, match.end() - 1)
        ints: list[int] = []
        sizes: list[int] = []
        for arg in args:
            if _INT.match(arg):
                ints.append(int(arg.replace(" ", "")))
            elif found := _STRING_ARG.match(arg):
                sizes.append(int(found.group(1)))
            else:
                raise InvalidInputError(
                    f"{name}() in Cypher search takes literal arguments only (got "
                    f"{arg.strip()!r}), so its size is known before it runs."
                )
        total *= _generated(name, ints, sizes)
        if total > MAX_GENERATED:
            raise InvalidInputError(
                f"Cypher query would generate over {MAX_GENERATED:,} values with {name}(); "
                "use smaller ranges."
            )


def _generated(name: str, ints: list[int], sizes: list[int]) -> int:
    if name == "range":
        if len(ints) not in (2, 3) or (len(ints) == 3 and ints[2] == 0):
            raise InvalidInputError("range() takes (start, end) or (start, end, step != 0).")
        start, end = ints[0], ints[1]
        step = ints[2] if len(ints) == 3 else 1
        return max(0, (end - start) // step + 1)
    if name == "repeat":
        return max(1, (sizes[0] if sizes else 1) * max(0, ints[0] if ints else 0))
    return max(1, ints[0] if ints else 0)  # lpad / rpad: the padded length
