"""The items one sentence states, for one asked kind (BROAD's record extraction).

A sentence states an item of kind ``pet`` when it uses a word for one ("a cat
named Luna", "my puppy Max") or the kind's own word; the item is the name given to
it, else the word itself ("I play the guitar"). A kind of place or organisation
takes the entities of that type the sentence names ("We visited Rome"), when the
sentence goes, lives or travels there. Amounts are a number and a unit ("10 km",
"$300").
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Sequence

from retrievers.broad_kinds import ENTITY_KINDS, IRREGULAR, MEMBERS, PLACE_VERBS, UNITS, singular

_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'“])")
_HEADER = re.compile(r"^\[[^\]]{0,40}\]\s*")
_TOKEN = re.compile(r"[\w'’\-]+|\"[^\"]{1,60}\"|“[^”]{1,60}”|[$€£]")
_FIRST_PERSON = frozenset(
    {"i", "i'm", "i've", "i'd", "i'll", "my", "me", "mine", "we", "our", "us", "we've", "we're"}
)
# Wishes, plans and denials: the item is not (yet) the subject's.
_MODAL = re.compile(
    r"\b(?:want(?:s|ed)?\s+to|plan(?:s|ning|ned)?\s+(?:to|on)|hope(?:s)?\s+to|wish(?:es)?|"
    r"will|going\s+to|would\s+(?:like|love)|someday|one\s+day|next\s+(?:year|month|week|summer|time)|"
    r"never|not|n't|no\s+longer|dream(?:s|ing)?\s+of|thinking\s+(?:of|about))\b",
    re.I,
)
_NAME_WORD = re.compile(r"^[A-Z0-9][\w'’\-]*$")
_NAMING = frozenset({"named", "called"})
_APPOSITION = frozenset({"my", "our", "new", "little", "sweet", "old", "first", "second"})
_PLACE_PREPOSITIONS = frozenset({"in", "to", "from", "at", "around", "through", "across"})
_NUMBER = re.compile(r"^\d+(?:[.,]\d+)?$")
_LOWER_LINK = frozenset(
    {"half", "full", "mini", "big", "little", "grand", "annual", "city", "de", "of"}
)


# The functions of one sentence below are memoised: a BROAD question reads every
# chunk of its subject (hundreds), and the next question about the same subject
# reads the same sentences again.
_MEMO = 1 << 16


@functools.lru_cache(maxsize=_MEMO)
def sentences(text: str) -> tuple[str, ...]:
    """The sentences of a chunk's text, its "[time] Speaker:" header cut."""
    body = _HEADER.sub("", text.strip())
    head, sep, rest = body.partition(": ")
    if sep and len(head) <= 40 and "." not in head:
        body = rest
    return tuple(s.strip() for s in _SENTENCE.split(body) if s.strip())


@functools.lru_cache(maxsize=_MEMO)
def tokens(sentence: str) -> tuple[str, ...]:
    """Words, quoted titles and currency signs, in order."""
    return tuple(_TOKEN.findall(sentence))


@functools.lru_cache(maxsize=_MEMO)
def lowered(sentence: str) -> frozenset[str]:
    """The sentence's tokens in lower case."""
    return frozenset(t.lower() for t in tokens(sentence))


def first_person(sentence: str) -> bool:
    """Whether the sentence speaks of its speaker (I, my, we ...)."""
    return not lowered(sentence).isdisjoint(_FIRST_PERSON)


_OTHERS = frozenset({"you", "your", "yours", "he", "she", "his", "her", "they", "their", "them"})


def about_others(sentence: str) -> bool:
    """Whether the sentence speaks of someone other than its speaker (you, she ...)."""
    return not lowered(sentence).isdisjoint(_OTHERS)


@functools.lru_cache(maxsize=_MEMO)
def modal(sentence: str) -> bool:
    """Whether the sentence states a wish, a plan or a denial rather than a fact."""
    return _MODAL.search(sentence) is not None


def named_items(sentence: str, kind: str) -> list[str]:
    """The items of ``kind`` the sentence names by a word for one, in order."""
    return list(_named_items(sentence, kind))


@functools.lru_cache(maxsize=_MEMO)
def _named_items(sentence: str, kind: str) -> tuple[str, ...]:
    members = MEMBERS.get(kind, frozenset()) | {kind}
    words = tokens(sentence)
    out: list[str] = []
    for at, word in enumerate(words):
        if singular(word.strip('"“”').lower()) not in members:
            continue
        out.append(_name_at(words, at) or word.lower())
    return tuple(dict.fromkeys(out))


def _name_at(words: Sequence[str], at: int) -> str | None:
    """The name an item word at ``at`` is given: "cat named Luna", "cat Luna",
    'book "Dune"', or a name written before it ("the Lyon half marathon")."""
    after = words[at + 1 : at + 5]
    for i, word in enumerate(after):
        if word.lower() in _NAMING and i + 1 < len(after):
            return _name_from(after[i + 1 :])
    if after and (after[0].startswith(('"', "“")) or _is_name(after[0])):
        return _name_from(after)
    back = at
    while back > 0 and words[back - 1].lower() in _APPOSITION:
        back -= 1
    if (
        back < at
        and back > 0
        and words[back].lower() in {"my", "our"}
        and _is_name(words[back - 1])
    ):
        return words[back - 1]  # "Meet Pepper, my new cat"
    start = at
    while start > 0 and (_is_name(words[start - 1]) or words[start - 1].lower() in _LOWER_LINK):
        start -= 1
    while start < at and not _is_name(words[start]):
        start += 1
    if start < at:
        return " ".join(words[start : at + 1])
    return None


def _is_name(word: str) -> bool:
    return bool(_NAME_WORD.match(word)) and word.lower() not in _FIRST_PERSON


def _name_from(words: Sequence[str]) -> str | None:
    if not words:
        return None
    if words[0].startswith(('"', "“")):
        return words[0].strip('"“”')
    taken = []
    for word in words[:4]:
        if not _is_name(word):
            break
        taken.append(word)
    return " ".join(taken) or None


def typed_items(sentence: str, kind: str, entities: Iterable[tuple[str, str]]) -> list[str]:
    """The entities (name, type) of the kind's types that ``sentence`` names, when
    it goes, lives or travels there (for a kind of place)."""
    types = ENTITY_KINDS.get(kind)
    if not types:
        return []
    visits = "LOCATION" not in types or not lowered(sentence).isdisjoint(PLACE_VERBS)
    return [
        name
        for name, type_ in entities
        if type_ in types and _names(sentence, name, after_preposition=not visits)
    ]


def _names(sentence: str, name: str, *, after_preposition: bool = False) -> bool:
    """Whether ``sentence`` names ``name`` (after in/to/from ... when asked)."""
    lead = r"\b(?:" + "|".join(_PLACE_PREPOSITIONS) + r")\s+" if after_preposition else ""
    return (
        re.search(rf"{lead}(?<![\w]){re.escape(name)}(?![\w])", sentence, re.I if lead else 0)
        is not None
    )


def amounts(sentence: str, unit: str) -> list[tuple[float, str]]:
    """Each amount in ``unit`` the sentence states, with the unit as written."""
    spellings = {s.lower() for s in UNITS.get(unit, (unit,))}
    words = tokens(sentence)
    out = []
    for at, word in enumerate(words):
        number = word.replace(",", "")
        if not _NUMBER.match(number):
            glued = re.match(r"^(\d+(?:\.\d+)?)([a-z]+)$", word.lower())
            if glued and glued.group(2) in spellings:
                out.append((float(glued.group(1)), glued.group(2)))
            continue
        before = words[at - 1].lower() if at else ""
        after = words[at + 1].lower() if at + 1 < len(words) else ""
        if after in spellings:
            out.append((float(number), after))
        elif before in spellings and before in {"$", "€", "£"}:
            out.append((float(number), before))
    return out


def mentions_term(sentence: str, terms: Iterable[str]) -> bool:
    """Whether the sentence has a word starting like one of ``terms`` (stem match;
    an irregular past form counts as its verb)."""
    words = [IRREGULAR.get(w.lower(), w.lower()) for w in tokens(sentence)]
    wanted = [IRREGULAR.get(t, t) for t in terms]
    return any(any(w.startswith(t[: max(3, len(t) - 2)]) for w in words) for t in wanted)
