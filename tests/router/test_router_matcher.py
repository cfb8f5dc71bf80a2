"""The fast matcher against a plain reference: same answers, every time."""

from __future__ import annotations

import random
import re

import pytest

from recall_engine.core.search_types import SearchType
from router import DEFAULT_RULES, route
from router.matcher import NEGATION_PATTERN, CompiledRule, lowercase_pattern
from router.prefilter import candidate_pattern, required_literals

_NEGATION = re.compile(NEGATION_PATTERN, re.IGNORECASE)


def reference_fires(pattern: str, case_sensitive: bool, text: str, window: int = 20) -> bool:
    """The contract, written the slow obvious way: IGNORECASE, finditer, negation window."""
    compiled = re.compile(pattern, 0 if case_sensitive else re.IGNORECASE)
    return any(
        _NEGATION.search(text, max(0, m.start() - window), m.start()) is None
        for m in compiled.finditer(text)
    )


def fast_fires(rule: CompiledRule, text: str) -> bool:
    return rule.fires(text if rule.case_sensitive else text.lower(), 20)


def _compile(pattern: str, case_sensitive: bool = False) -> CompiledRule:
    return CompiledRule.build(
        id="t", pattern=pattern, target=SearchType.CHUNKS, weight=1.0, case_sensitive=case_sensitive
    )


_WORDS = (
    "why what when how is are do related to linked connected between and 1990 2000 1990s "
    "port error code # $ 3.14 . , ; not no never without lack don't isn't can't cannot awhy "
    "knot another summary summarised overview tl;dr exact verbatim word for def return "
    'import class Foo( .py function f( MATCH RETURN -- ( ) " “ ” lint refactor because '
    "timeline era eras decade century WHY When Because x last past month weeks ago yesterday "
    "March may in 3rd 12"
)
_PHRASES = [
    "how is Ann related",
    "How are a b c d e f g connected",
    "what connects",
    "path between",
    "degrees of separation",
    "between 1990 and 2000",
    "word for word",
    "step by step",
    "last March",
    "two weeks ago",
    "in May",
    "May 21",
    "the past 12 months",
    "how many",
    "list all",
    "in total",
    "which one the most",
    "what is this about",
    "(a)--(b)",
]
VOCABULARY = [*_WORDS.split(), *_PHRASES]


def _random_queries(count: int, seed: int = 7) -> list[str]:
    rng = random.Random(seed)
    joiners = [" ", "", "  ", "-", "\n"]
    queries = []
    for _ in range(count):
        words = (rng.choice(VOCABULARY) for _ in range(rng.randint(1, 14)))
        query = "".join(word + rng.choice(joiners) for word in words)
        # Sometimes the whole query is one quoted phrase.
        queries.append(f'"{query.strip()}"' if rng.random() < 0.1 else query)
    return queries


@pytest.mark.parametrize("rule", DEFAULT_RULES, ids=[r.id for r in DEFAULT_RULES])
def test_fast_matcher_agrees_with_reference_on_random_queries(rule) -> None:  # type: ignore[no-untyped-def]
    compiled = _compile(rule.pattern, rule.case_sensitive)
    for text in _random_queries(1500):
        assert fast_fires(compiled, text) == reference_fires(
            rule.pattern, rule.case_sensitive, text
        ), text


def test_router_fires_exactly_the_rules_the_reference_fires() -> None:
    # End to end, literal gates and candidate scans included.
    for query in _random_queries(3000, seed=11):
        text = query.strip()
        if not text:
            continue
        expected = [
            r.id for r in DEFAULT_RULES if reference_fires(r.pattern, r.case_sensitive, text)
        ]
        assert route(query).fired == expected, query


def test_oracle_queries_exercise_every_rule() -> None:
    # Guards the oracle tests above against a vocabulary that matches nothing.
    fired = {
        rule_id for q in _random_queries(3000, seed=11) if q.strip() for rule_id in route(q).fired
    }
    assert fired == {r.id for r in DEFAULT_RULES}


def test_near_miss_fallback_agrees_with_reference() -> None:
    compiled = _compile(r"\bwhy\b")
    assert compiled.candidates is not None
    for tail in ("why", "not why", "awhy", "why not"):
        text = "awhy " * 30 + tail
        assert fast_fires(compiled, text) == reference_fires(r"\bwhy\b", False, text)


def test_later_match_fires_when_an_earlier_one_is_negated() -> None:
    compiled = _compile(r"\btimeline\b")
    assert not fast_fires(compiled, "no timeline")
    assert fast_fires(compiled, "no timeline here, but the timeline there")


@pytest.mark.parametrize(
    ("pattern", "expected"),
    [
        (r"\bfoo\b", r"foo\b"),
        (r"(?:\bdef\s|\breturn\s|\.py\b)", r"(?:def\s|return\s|\.py\b)"),
        (r"\b(?:a|\bb)|\bc", r"(?:a|b)|c"),
        (r"(?<![\w#$])(?<!\bport\s)(?:1\d{3})", r"(?:1\d{3})"),
        (r"(?=a|\bb)|\bq", r"(?=a|\bb)|q"),  # never inside a lookaround
        (r"(?!\bx)\by", None),
        (r"[\b]\bz", None),  # [\b] is a backspace, and the \b after it opens no branch
        (r"\\bfoo", None),  # an escaped backslash, then 'bfoo'
        (r"\b*", None),
        ("plain", None),
    ],
)
def test_candidate_pattern(pattern: str, expected: str | None) -> None:
    assert candidate_pattern(pattern) == expected


@pytest.mark.parametrize(
    ("pattern", "expected"),
    [
        (r"\b(?:when|before)\b", ("when", "before")),
        (r"(?:ab|cd)(?:ef|gh)i", ("abefi", "abghi", "cdefi", "cdghi")),
        (r"outlines?|outline|outlined", ("outline",)),  # longer ones contain it
        (r"^(?:MATCH|RETURN)\s|--\(", ("MATCH", "RETURN", "--(")),
        (r"x(?=y)z", ("xz",)),
        (r"(a|b*)c", None),  # a branch may start with anything
        (r"(?i:foo)bar", None),  # scoped flags: no literal claims
        (r"(?i)FOO", None),
        (r"[ab]c", None),
        ("a|", None),
    ],
)
def test_required_literals(pattern: str, expected: tuple[str, ...] | None) -> None:
    assert required_literals(pattern) == expected


def test_lowercase_pattern_keeps_escape_letters() -> None:
    assert lowercase_pattern(r"\bKubernetes\W\S+\D[A-Z]") == r"\bkubernetes\W\S+\D[a-z]"
    assert lowercase_pattern(r"\\B") == r"\\b"  # an escaped backslash, then a letter


def test_negation_pattern_words() -> None:
    words = ["not", "no", "never", "without", "lack", "lacks", "cannot", "don't", "won’t"]
    assert all(_NEGATION.fullmatch(w) for w in words)
    assert not any(_NEGATION.search(w) for w in ["knot", "another", "nothing", "point", "want"])
