"""Which time a question asks about: the present, a past period, or neither.

    from router.tense import read_tense
    read_tense("Where did Ann live before Paris?")
    # TenseReading(reading='past', period='before', anchor='paris', fired=(...))

The cues are data (``tense_rules.toml`` next to this module): each rule votes for
one reading with its weight, the higher total wins, a tie reads as "none". A
past rule may also say which period it means and capture what the period is told
by (its ``anchor`` group); the first such rule that fires names the period.
"""

from __future__ import annotations

import functools
import re
import tomllib
from dataclasses import dataclass
from importlib import resources
from typing import Any, Literal

from recall_engine.core.errors import InvalidRuleError

Reading = Literal["present", "past", "none"]
Period = Literal["before", "during", "year", "first", "previous"]
_READINGS = ("present", "past")
_PERIODS = ("before", "during", "year", "first", "previous")
_FIELDS = ("id", "description", "pattern", "reading", "period", "weight", "examples")


@dataclass(frozen=True, slots=True)
class TenseRule:
    """One tense cue: when ``pattern`` matches the lowercased question, ``reading``
    gains ``weight``; a past cue may name the ``period`` it asks about.

    Raises:
        InvalidRuleError: an unknown reading or period, a pattern that does not
            compile or matches the empty string, or a negative weight.
    """

    id: str
    pattern: str
    reading: str
    weight: float
    period: str | None = None
    examples: tuple[str, ...] = ()
    description: str = ""

    def __post_init__(self) -> None:
        if self.reading not in _READINGS:
            raise InvalidRuleError(
                f"Tense rule {self.id!r}: reading must be one of {_READINGS}, got {self.reading!r}."
            )
        if self.period is not None and self.period not in _PERIODS:
            raise InvalidRuleError(
                f"Tense rule {self.id!r}: period must be one of {_PERIODS}, got {self.period!r}."
            )
        if not isinstance(self.weight, int | float) or self.weight < 0:
            raise InvalidRuleError(f"Tense rule {self.id!r}: weight must be a number >= 0.")
        try:
            compiled = re.compile(self.pattern)
        except re.error as exc:
            raise InvalidRuleError(
                f"Tense rule {self.id!r}: pattern is not a valid regular expression ({exc})."
            ) from exc
        if compiled.search("") is not None:
            raise InvalidRuleError(f"Tense rule {self.id!r}: pattern matches the empty string.")


@dataclass(frozen=True, slots=True)
class TenseReading:
    """What a question asks about: ``reading``, and for a past question the
    ``period`` (kind) and its ``anchor`` (the captured words, lowercased) if told."""

    reading: Reading
    period: Period | None = None
    anchor: str | None = None
    fired: tuple[str, ...] = ()
    spans: tuple[str, ...] = ()
    """The words each fired cue matched (lowercased): what is said about time."""

    def without_cues(self, question: str) -> str:
        """``question`` less the words that only say which time it asks about
        ("before Paris", "now"): what it asks for."""
        out = question
        for span in sorted(self.spans, key=len, reverse=True):
            out = re.sub(rf"\b{re.escape(span)}\b", " ", out, flags=re.IGNORECASE)
        return re.sub(r"\s+", " ", out).strip()

    def metadata(self) -> dict[str, Any]:
        """The reading as plain data for ``metadata["temporal"]``."""
        period = None if self.period is None else {"kind": self.period, "anchor": self.anchor}
        return {"reading": self.reading, "period": period, "fired": list(self.fired)}


NO_READING = TenseReading("none")


def parse_tense_rules(items: list[dict[str, Any]]) -> tuple[TenseRule, ...]:
    """Tense rules from plain mappings (as read from TOML).

    Raises:
        InvalidRuleError: a missing or unknown field, or what ``TenseRule`` refuses.
    """
    rules = []
    for item in items:
        unknown = sorted(set(item) - set(_FIELDS))
        if unknown or not {"id", "pattern", "reading", "weight"} <= set(item):
            raise InvalidRuleError(
                f"Tense rule {item.get('id')!r}: needs id, pattern, reading, weight; "
                f"unknown field(s): {', '.join(unknown) or 'none'}."
            )
        rules.append(TenseRule(**{**item, "examples": tuple(item.get("examples", ()))}))
    return tuple(rules)


@functools.lru_cache(maxsize=256)
def _compiled(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern)


@functools.cache
def default_tense_rules() -> tuple[TenseRule, ...]:
    """The shipped table, ``router/tense_rules.toml``."""
    text = resources.files("router").joinpath("tense_rules.toml").read_text("utf-8")
    return parse_tense_rules(tomllib.loads(text)["rules"])


def read_tense(question: str, rules: tuple[TenseRule, ...] | None = None) -> TenseReading:
    """The tense reading of ``question`` under ``rules`` (default: the shipped table)."""
    text = question.lower()
    totals = {"present": 0.0, "past": 0.0}
    fired: list[str] = []
    spans: list[str] = []
    period: str | None = None
    anchor: str | None = None
    for rule in rules if rules is not None else default_tense_rules():
        match = _compiled(rule.pattern).search(text)
        if match is None:
            continue
        fired.append(rule.id)
        spans.append(match.group(0).rstrip("?.!, "))
        totals[rule.reading] += rule.weight
        if rule.period is not None and period is None:
            period = rule.period
            captured = match.groupdict().get("anchor")
            anchor = captured.strip() if captured else None
    if totals["present"] == totals["past"]:
        return TenseReading("none", fired=tuple(fired))
    if totals["present"] > totals["past"]:
        return TenseReading("present", fired=tuple(fired), spans=tuple(spans))
    return TenseReading("past", period, anchor, tuple(fired), tuple(spans))  # type: ignore[arg-type]
