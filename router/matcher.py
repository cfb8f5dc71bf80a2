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

Rules other than the shipped table are *bounded*: compiled with the ``regex``
package and matched under a time budget per rule per query
(``RULE_TIMEOUT_S``), so a catastrophically backtracking user pattern cannot
stall the caller; a rule that runs out of time does not fire. ``probe_rule``
refuses, at load time, a rule whose own examples or a short adversarial probe
already exceed the budget.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Protocol, cast

import regex

from recall_engine.core.search_types import SearchTypeName
from router.prefilter import candidate_pattern, required_literals

# not, no, never, without, lack(s/ed/ing), cannot, and any n't contraction.
NEGATION_PATTERN = r"\b(?:not|no|never|without|lack(?:s|ed|ing)?|cannot|\w+n['’]t)\b"
_NEGATION = re.compile(NEGATION_PATTERN)
_NEGATION_ANY_CASE = re.compile(NEGATION_PATTERN, re.IGNORECASE)

# After this many candidates that the exact pattern rejects, let the exact
# pattern scan the rest itself rather than loop in Python per candidate.
_MAX_NEAR_MISSES = 8

RULE_TIMEOUT_S = 0.02
"""Time a bounded (user) rule may spend on one query; past it the rule does not fire."""
PROBE_CHARS = 64
"""Length of the adversarial probes ``probe_rule`` runs at load time."""


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
    target: SearchTypeName
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
        cls,
        *,
        id: str,
        pattern: str,
        target: SearchTypeName,
        weight: float,
        case_sensitive: bool,
        bounded: bool = False,
    ) -> CompiledRule:
        """Compile a rule's pattern (lowercased unless ``case_sensitive``).

        ``bounded`` compiles with ``regex`` under ``RULE_TIMEOUT_S`` (user rules).

        Raises:
            re.error, regex.error: the pattern does not compile.
        """
        source = pattern if case_sensitive else lowercase_pattern(pattern)
        if bounded:
            return BoundedRule.compile(id, target, weight, case_sensitive, source)
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


class _Found(Protocol):
    """A ``regex`` match: where it starts and ends."""

    def start(self) -> int: ...
    def end(self) -> int: ...


class _TimedPattern(Protocol):
    """A compiled ``regex`` pattern: unlike ``re``'s, its search and match take ``timeout=``."""

    def search(self, string: str, pos: int = ..., *, timeout: float) -> _Found | None: ...
    def match(self, string: str, pos: int = ..., *, timeout: float) -> _Found | None: ...


class BoundedRule(CompiledRule):
    """A user rule: ``regex`` patterns, every search within the rule's time budget.

    ``fires`` raises ``TimeoutError`` when the budget runs out; the router then
    counts the rule as not firing.
    """

    __slots__ = ()

    @classmethod
    def compile(
        cls, id: str, target: SearchTypeName, weight: float, case_sensitive: bool, source: str
    ) -> BoundedRule:
        exact = regex.compile(source)  # regex ships no types: these are its patterns
        relaxed = candidate_pattern(source)
        candidates = None
        if relaxed is not None:
            try:
                candidates = regex.compile(relaxed)
            except regex.error:
                candidates = None
        scan = _timed((candidates or exact).search)
        return cls(id, target, weight, case_sensitive, exact, candidates, None, scan)

    def fires(self, subject: str, window: int, found: re.Match[str] | None = None) -> bool:
        deadline = time.perf_counter() + RULE_TIMEOUT_S
        negation = _NEGATION_ANY_CASE if self.case_sensitive else _NEGATION
        # compile() stored regex patterns in these fields: their search takes timeout=
        exact = cast(_TimedPattern, self.exact)
        candidates = cast(_TimedPattern | None, self.candidates)
        scan = candidates if candidates is not None else exact
        at = 0
        while True:
            hit = scan.search(subject, at, timeout=_left(deadline))
            if hit is None:
                return False
            start = hit.start()
            match = (
                hit if candidates is None else exact.match(subject, start, timeout=_left(deadline))
            )
            if (
                match is not None
                and negation.search(subject, max(0, start - window), start) is None
            ):
                return True
            at = max(match.end(), start + 1) if match is not None else start + 1
            if at > len(subject):
                return False


def _left(deadline: float) -> float:
    left = deadline - time.perf_counter()
    if left <= 0:
        raise TimeoutError("regex time budget exhausted")
    return left


def _timed(search: Callable[..., object]) -> Callable[..., re.Match[str] | None]:
    # ``search`` is a regex pattern's: its match stands in for re's (start, end).
    def scan(subject: str, pos: int = 0) -> re.Match[str] | None:
        return cast("re.Match[str] | None", search(subject, pos, timeout=RULE_TIMEOUT_S))

    return scan


def probe_rule(source: str, examples: Iterable[str]) -> str | None:
    """The first input on which ``source`` (the pattern as the matcher runs it)
    needs more than ``RULE_TIMEOUT_S``: one of ``examples``, or an adversarial
    probe (runs of the pattern's own letters, with and without spaces, ending in
    a character that fails the match). None when every input is fast.

    Raises:
        regex.error: the pattern does not compile.
    """
    compiled = regex.compile(source)
    letters = [c for c in dict.fromkeys(source.lower()) if c.isalnum()][:12] or ["a"]
    probes = [*examples]
    probes += [e * 4 + "!" for e in examples]
    for c in [*letters, "a", "0"]:
        probes += [c * PROBE_CHARS + "!", (c + " ") * (PROBE_CHARS // 2) + "!"]
    mixed = "".join(letters)
    probes += [(mixed * PROBE_CHARS)[:PROBE_CHARS] + "!", (mixed + " ") * 8 + "\x00"]
    for text in probes:
        for subject in (text, text.lower()):
            try:
                compiled.search(subject, timeout=RULE_TIMEOUT_S)
            except TimeoutError:
                return subject
    return None
