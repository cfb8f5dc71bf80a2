"""Relaxations of a rule's pattern that are cheap to test and never miss a match.

Both answer "could the exact pattern match here?" with no false negatives, so
skipping a rule (or a position) they reject changes nothing that routes.
"""

from __future__ import annotations


def candidate_pattern(pattern: str) -> str | None:
    """A relaxed ``pattern`` that the regex engine can scan for quickly, or None.

    Drops the leading lookbehinds and every ``\\b`` that opens a branch (outside
    lookarounds), so each branch starts with a literal the engine can skip to.
    Dropping a zero-width assertion only relaxes, so every match of ``pattern``
    starts where the result also matches.
    """
    pos = 0
    while pattern.startswith(("(?<=", "(?<!"), pos):
        end = _group_end(pattern, pos)
        if end is None:
            return None
        pos = end
    out: list[str] = []
    groups: list[bool] = []  # per open group: is it a lookaround?
    branch_start = True
    in_class = False
    i = pos
    while i < len(pattern):
        char = pattern[i]
        if char == "\\":
            if branch_start and not in_class and not any(groups) and pattern[i + 1 : i + 2] == "b":
                i += 2
                continue
            out.append(pattern[i : i + 2])
            i += 2
            branch_start = False
            continue
        out.append(char)
        i += 1
        if in_class:
            in_class = char != "]"
            continue
        if char == "[":
            in_class = True
            # A ']' right after '[' or '[^' is a member, not the end of the class.
            for lead in "^]":
                if pattern.startswith(lead, i):
                    out.append(lead)
                    i += 1
        elif char == "(":
            lookaround = pattern.startswith(("?=", "?!", "?<=", "?<!"), i)
            if pattern.startswith("?:", i):
                out.append("?:")
                i += 2
            groups.append(lookaround)
        elif char == ")" and groups:
            groups.pop()
        branch_start = char in "(|" and not in_class
    relaxed = "".join(out)
    if relaxed == pattern or not relaxed or relaxed[0] in "*+?{":
        return None
    return relaxed


def _group_end(pattern: str, start: int) -> int | None:
    """Index just past the group opened at ``start``, skipping escapes and classes."""
    depth = 0
    i = start
    in_class = False
    while i < len(pattern):
        char = pattern[i]
        if char == "\\":
            i += 2
            continue
        if in_class:
            in_class = char != "]"
        elif char == "[":
            in_class = True
            # A ']' right after '[' or '[^' is a literal member, not the end.
            if pattern.startswith("^", i + 1):
                i += 1
            if pattern.startswith("]", i + 1):
                i += 1
        elif char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return None


# More literals than this and str searches cost more than the regex scan.
_MAX_LITERALS = 12
# Bound on the prefixes a walk may build before it stops extending them.
_MAX_PREFIXES = 32


def required_literals(pattern: str) -> tuple[str, ...] | None:
    """Strings one of which every match of ``pattern`` starts with, or None.

    None when the pattern offers no usable literal (it starts with a class, a
    repeat, ...), or too many. Zero-width assertions are skipped, which only
    relaxes. Reads the parse tree of ``re``'s private parser, so any surprise
    there means "no literals" rather than a wrong answer.
    """
    try:
        from re import _constants, _parser  # type: ignore[attr-defined]

        parsed = _parser.parse(pattern)
        if parsed.state.flags & _constants.SRE_FLAG_IGNORECASE:
            return None  # (?i) on a case-sensitive rule: literals would mislead
        literals, _ = _walk(parsed.data, _constants)
    except Exception:  # a private API: any surprise means no gate, never a wrong one
        return None
    unique = list(dict.fromkeys(literals))
    # A text holds a literal only if it holds every literal inside it, so the
    # shorter one alone decides.
    needed = tuple(x for x in unique if not any(y != x and y in x for y in unique))
    if not needed or "" in needed or len(needed) > _MAX_LITERALS:
        return None
    return needed


def _walk(items: list, c) -> tuple[list[str], bool]:  # type: ignore[no-untyped-def,type-arg]
    """(prefixes, complete): every match of ``items`` starts with one of the
    prefixes; ``complete`` when each prefix is a whole match, so more may follow."""
    prefixes = [""]
    for op, av in items:
        if op in (c.AT, c.ASSERT, c.ASSERT_NOT):
            continue
        if op is c.LITERAL:
            prefixes = [p + chr(av) for p in prefixes]
            continue
        if op is c.BRANCH:
            parts: list[str] = []
            complete = True
            for alternative in av[1]:
                sub, sub_complete = _walk(alternative, c)
                parts += sub
                complete = complete and sub_complete
        elif op is c.SUBPATTERN and not av[1] and not av[2]:  # a group without flags
            parts, complete = _walk(av[3], c)
        else:
            return prefixes, False
        if len(prefixes) * len(parts) > _MAX_PREFIXES:
            return prefixes, False
        prefixes = [p + part for p in prefixes for part in parts]
        if not complete:
            return prefixes, False
    return prefixes, True
