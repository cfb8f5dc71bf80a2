"""Compiled rules: find the first match of a rule that no negation precedes.

Three speed-ups keep routing in microseconds without changing what matches:

* Case-insensitive rules are compiled without ``re.IGNORECASE`` (which defeats
  the engine's first-character scan) from a lowercased pattern, and run on the
  lowercased query.
* A *literal gate* (see ``prefilter.required_literals``): when none of the
  strings every match must start with occurs in the query, the rule is skipped
  with a few ``str`` searches.
* A *candidate* pattern (see ``prefilter.candidate_pattern``) without the
  leading ``\\b``/lookbehinds finds the leftmost possible start at C speed; the
  exact pattern then confirms with ``match`` at that position.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from recall_engine.core.search_types import SearchType
from router.prefilter import candidate_pattern, required_literals

# not, no, never, without, lack(s/ed/ing), cannot, and any n't contraction.
NEGATION_PATTERN = r"\b(?:not|no|never|without|lack(?:s|ed|ing)?|cannot|\w+n['’]t)\b"
_NEGATION = re.compile(NEGATION_PATTERN)
_NEGATION_ANY_CASE = re.compile(NEGATION_PATTERN, re.IGNORECASE)

# After this many candidates that the exact pattern rejects, let the exact
# pattern scan the rest itself rather than loop in Python per candidate.
_MAX_NEAR_MISSES = 8


def lowercase_pattern(pattern: str) -> str:
    """``pattern`` with its letters lowercased, except escape letters (``\\W``, ``\\S``).

    Lowercased letters still mean the same to the lowercased query, so the
    result matches there exactly what ``pattern`` with IGNORECASE matches.
    """
    out: list[str] = []
    escaped = False
    for char in pattern:
        out.append(char if escaped else char.lower())
        escaped = not escaped and char == "\\"
    return "".join(out)


@dataclass(frozen=True, slots=True)
class CompiledRule:
    """A rule ready to scan: its exact pattern, its optional candidate pattern."""

    id: str
    target: SearchType
    weight: float
    case_sensitive: bool
    exact: re.Pattern[str]
    candidates: re.Pattern[str] | None
    # Strings one of which every match starts with (None: no usable literal).
    gate: tuple[str, ...] | None
    # The fastest pattern that finds whether anything could match at all.
    scan: Callable[..., re.Match[str] | None]

    @classmethod
    def build(
        cls, *, id: str, pattern: str, target: SearchType, weight: float, case_sensitive: bool
    ) -> CompiledRule:
        """Compile a rule's pattern (lowercased unless ``case_sensitive``).

        Raises:
            re.error: the pattern does not compile.
        """
        source = pattern if case_sensitive else lowercase_pattern(pattern)
        exact = re.compile(source)
        relaxed = candidate_pattern(source)
        candidates = None
        if relaxed is not None:
            try:
                candidates = re.compile(relaxed)
            except re.error:
                candidates = None  # odd pattern: scan with the exact one only
        scan = (candidates or exact).search
        gate = required_literals(source)
        return cls(id, target, weight, case_sensitive, exact, candidates, gate, scan)

    def fires(self, subject: str, window: int, found: re.Match[str] | None = None) -> bool:
        """True when some match in ``subject`` has no negation in the ``window``
        characters before it. ``subject`` is the query, lowercased unless the
        rule is case-sensitive; ``found``, if given, is ``self.scan(subject)``."""
        scan, exact = self.scan, self.exact
        negation = _NEGATION_ANY_CASE if self.case_sensitive else _NEGATION
        if found is None:
            found = scan(subject)
        misses = 0
        while found is not None:
            at = found.start()
            # Without candidates, scan is the exact search and found a real match.
            match = found if self.candidates is None else exact.match(subject, at)
            if match is None:
                misses += 1
                if misses > _MAX_NEAR_MISSES:
                    scan = exact.search
                found = scan(subject, at + 1)
                continue
            if negation.search(subject, max(0, at - window), at) is None:
                return True
            # A later match of the same rule may still stand un-negated.
            found = scan(subject, max(match.end(), at + 1))
        return False
