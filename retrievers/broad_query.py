"""How BROAD reads an aggregation question: what it asks, of what kind, about whom.

"How many pets does Ann have?" asks a COUNT of kind ``pet`` about ``Ann``; "List
every city Ann visited" a LIST of ``city``; "How many km did Ann run in total?" a
TOTAL in ``km``; "How many times did Ann go to the gym?" the TIMES a happening is
stated; "Which sport does Ann mention the most?" the item stated MOST. Plain
patterns over the question; ``read_question`` returns None for a question that asks
none of these (BROAD then lists every record the question's words reach).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from recall_engine.core.records import Ask
from retrievers.broad_kinds import UNITS, singular


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


_WORD = r"[a-z][a-z'\-]*"
# Adjectives between the asking phrase and the kind: "how many different countries".
_FILLER = (
    r"(?:(?:different|distinct|separate|total|other|individual|unique|of|the|his|her|their"
    r"|[a-z]+'s|kinds?\s+of|types?\s+of|sorts?\s+of)\s+)*"
)
_COUNT = re.compile(rf"\bhow\s+many\s+{_FILLER}(?P<kind>{_WORD})", re.I)
_TIMES = re.compile(r"\bhow\s+(?:many\s+times|often)\b", re.I)
_TOTAL = re.compile(
    r"\b(?:in\s+total|altogether|all\s+together|combined|the\s+total|total\s+(?:amount|number|of))\b",
    re.I,
)
_HOW_MUCH = re.compile(r"\bhow\s+much\b", re.I)
_MOST = re.compile(r"\b(?:the\s+)?most\b|\bmost\s+(?:often|frequently)\b", re.I)
_LIST = re.compile(
    rf"\b(?:list|name|enumerate)\s+(?:(?:all|every|each)\s+)?(?:of\s+)?(?:the\s+)?"
    rf"{_FILLER}(?P<kind>{_WORD})"
    rf"|\bwhat\s+are\s+(?:all\s+)?(?:the\s+)?{_FILLER}(?P<kind2>{_WORD})"
    rf"|\b(?:all|every|each)\s+(?:of\s+)?(?:the\s+)?{_FILLER}(?P<kind3>{_WORD})"
    rf"|\b(?:which|what)\s+{_FILLER}(?P<kind4>{_WORD})"
    r"\s+(?:has|have|had|did|does|do|is|are|was|were)\b",
    re.I,
)
_NAME = re.compile(r"\b[A-Z][\w\-]*(?:'s)?")
_NOT_NAMES = _words(
    """
    how what which who whom whose when where why list name tell give show count is
    are was were do does did has have had can could will would the a an in on of i
    me my we our you your all every each in total
    """
)
_NOW = re.compile(r"\b(?:now|currently|still|at\s+the\s+moment|these\s+days|today)\b", re.I)
# Wording that asks about plans or wishes: then those are what is listed.
_PLANS = re.compile(
    r"\b(?:plan|plans|planning|want|wants|hope|hopes|wish|will|going\s+to|would)\b", re.I
)
_STOP = _words(
    """
    a an the of to in on at for with by from and or but is are was were be been
    being do does did has have had how many much times often which what who whom
    whose when where why list name all every each total altogether combined most
    mention mentioned mentions say said talk talked about ever so far that this
    these those there their his her its they them he she it i me my we our you your
    in there any some
    """
)
_TERM = re.compile(r"[a-z][a-z\-]+")


@dataclass(frozen=True)
class BroadQuery:
    """One aggregation question, read."""

    ask: Ask
    kind: str
    """The asked kind, singular (or a unit for TOTAL); '' when none is named."""
    subjects: tuple[str, ...]
    terms: tuple[str, ...]
    """The question's content words (less names, the kind and asking words)."""
    current_only: bool = False
    plans: bool = False


def question_names(question: str) -> list[str]:
    """Capitalised words of the question that may name a subject, possessives cut."""
    names = []
    for match in _NAME.finditer(question):
        word = match.group(0)
        word = word[:-2] if word.endswith("'s") else word
        if word.lower() not in _NOT_NAMES:
            names.append(word)
    return list(dict.fromkeys(names))


def content_terms(text: str, drop: frozenset[str] = frozenset()) -> tuple[str, ...]:
    """Lowercased content words of ``text`` (stop words and ``drop`` left out)."""
    found = (t for t in _TERM.findall(text.lower()) if t not in _STOP and t not in drop)
    return tuple(dict.fromkeys(found))


def read_question(question: str) -> BroadQuery | None:
    """The aggregation ``question`` asks for, or None when it asks for none."""
    names = question_names(question)
    lowered = {n.lower() for n in names}
    ask, kind = _ask_and_kind(question)
    if ask is None:
        return None
    if kind in _STOP:
        return None  # "how many of them": no kind named
    drop = frozenset({*lowered, kind, f"{kind}s", "times"})
    terms = tuple(t for t in content_terms(question, drop) if singular(t) != kind)
    return BroadQuery(
        ask=ask,
        kind=kind,
        subjects=tuple(names),
        terms=terms,
        current_only=bool(_NOW.search(question)),
        plans=bool(_PLANS.search(question)),
    )


def _ask_and_kind(question: str) -> tuple[Ask | None, str]:
    if _TIMES.search(question):
        return Ask.TIMES, ""
    count = _COUNT.search(question)
    total = bool(_TOTAL.search(question)) or bool(_HOW_MUCH.search(question))
    if count is not None:
        kind = singular(count.group("kind").lower())
        if kind in UNITS or (total and kind not in ("time",)):
            return (Ask.TOTAL if kind in UNITS else Ask.COUNT), kind
        return Ask.COUNT, kind
    if _HOW_MUCH.search(question):
        unit = next((u for u in UNITS if re.search(rf"\b{re.escape(u)}", question, re.I)), "")
        return Ask.TOTAL, unit or "money"
    listed = _LIST.search(question)
    if listed is not None:
        word = next(g for g in listed.groups() if g)
        kind = singular(word.lower())
        if _MOST.search(question):
            return Ask.MOST, kind
        return Ask.LIST, kind
    return None, ""
