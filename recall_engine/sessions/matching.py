"""Which cached session entries ask the same question as a query.

A cached answer is only worth returning for the question it answered, so the
rule is strict: two questions match when their *question keys* are equal, or
one is the other with a single block of words moved ("In 2022, what did Ann
paint?" and "What did Ann paint in 2022?"). A key keeps every word that can
change what is asked (names, numbers, dates, question words, auxiliaries and
their tense, prepositions, negations), and drops only what never does:

- case, punctuation and whitespace;
- contractions, expanded ("What's" -> "what is", "didn't" -> "did not");
- politeness and framing ("please", "thanks", a leading "can you tell me",
  "do you know", "I'd like to know", ...);
- articles (a, an, the) and a possessive 's;
- inflection (Snowball stems) and small number words ("two" -> "2").

Swapping who did what ("Did Ann call Bob?" / "Did Bob call Ann?") needs more
than one block moved, so it is not a match. Nothing here is tuned to data: no
weights or thresholds, so what it matches does not drift with the session.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from functools import lru_cache

from recall_engine.sessions.store import QARecord

_APOSTROPHES = str.maketrans({"’": "'", "‘": "'", "`": "'", "´": "'"})
_WORD = re.compile(r"[^\W_]+(?:'[^\W_]+)?")
_IRREGULAR = {
    "can't": ("can", "not"),
    "cannot": ("can", "not"),
    "won't": ("will", "not"),
    "shan't": ("shall", "not"),
    "ain't": ("is", "not"),
    "i'm": ("i", "am"),
    "let's": ("let", "us"),
}
_SUFFIXES = {"n't": "not", "'re": "are", "'ve": "have", "'ll": "will", "'m": "am"}
# 's after these is "is"; after anything else it is a possessive and goes.
_IS_HOSTS = frozenset(
    [
        "what",
        "where",
        "when",
        "who",
        "how",
        "why",
        "which",
        "that",
        "it",
        "there",
        "here",
        "he",
        "she",
        "this",
    ]
)
# 'd after a question word is "did" ("What'd she say?"), else "would".
_DID_HOSTS = frozenset(["what", "where", "when", "who", "how", "why"])
_ARTICLES = frozenset({"a", "an", "the"})
_POLITE = frozenset({"please", "pls", "kindly"})
_NUMBERS = {
    word: str(value)
    for value, word in enumerate(
        [
            "zero",
            "one",
            "two",
            "three",
            "four",
            "five",
            "six",
            "seven",
            "eight",
            "nine",
            "ten",
            "eleven",
            "twelve",
        ]
    )
}
# Framing that may open a question without changing it; longest first.
_LEADS: tuple[tuple[str, ...], ...] = tuple(
    sorted(
        (
            tuple(lead.split())
            for lead in (
                "can you tell me",
                "could you tell me",
                "would you tell me",
                "will you tell me",
                "can you say",
                "could you say",
                "tell me",
                "do you know",
                "do you remember",
                "i would like to know",
                "i want to know",
                "i wonder",
                "i am wondering",
                "i was wondering",
                "let me know",
                "quick question",
                "hey",
                "hi",
                "ok",
                "okay",
                "so",
            )
        ),
        key=len,
        reverse=True,
    )
)
MAX_MOVE_WORDS = 40
"""Longer questions match only word for word (the block check is cubic)."""
_TAILS: tuple[tuple[str, ...], ...] = (("thank", "you"), ("thanks",), ("thx",))


def _words(text: str) -> list[str]:
    text = unicodedata.normalize("NFKC", text).translate(_APOSTROPHES).lower()
    out: list[str] = []
    for token in _WORD.findall(text):
        if token in _IRREGULAR:
            out.extend(_IRREGULAR[token])
            continue
        head, quote, tail = token.partition("'")
        if not quote:
            out.append(token)
        elif f"'{tail}" in _SUFFIXES or token.endswith("n't"):
            if token.endswith("n't"):
                out.extend((token[:-3], "not"))
            else:
                out.extend((head, _SUFFIXES[f"'{tail}"]))
        elif tail == "s":
            out.extend((head, "is") if head in _IS_HOSTS else (head,))
        elif tail == "d":
            out.extend((head, "did" if head in _DID_HOSTS else "would"))
        else:
            out.append(token)
    return out


def _strip_framing(words: list[str]) -> list[str]:
    words = [w for w in words if w not in _POLITE]
    changed = True
    while changed and words:
        changed = False
        for lead in _LEADS:
            # Only a lead that leaves a question behind is framing ("So?" stays).
            if len(words) > len(lead) and tuple(words[: len(lead)]) == lead:
                words, changed = words[len(lead) :], True
                break
        for tail in _TAILS:
            if len(words) > len(tail) and tuple(words[-len(tail) :]) == tail:
                words, changed = words[: -len(tail)], True
                break
    return words


@lru_cache(maxsize=1)
def _stemmer():  # type: ignore[no-untyped-def]
    import Stemmer

    return Stemmer.Stemmer("english")


@lru_cache(maxsize=16384)
def question_key(question: str) -> tuple[str, ...]:
    """The words of ``question`` that decide what it asks, normalised, in order."""
    words = _strip_framing(_words(question))
    kept = [_NUMBERS.get(w, w) for w in words if w not in _ARTICLES]
    return tuple(str(s) for s in _stemmer().stemWords(kept))


def _one_block_moved(a: tuple[str, ...], b: tuple[str, ...]) -> bool:
    """Whether ``b`` is ``a`` with one contiguous run of words moved elsewhere:
    some window of ``a`` around every difference reads, in ``b``, rotated (XY -> YX)."""
    if len(a) != len(b) or len(a) > MAX_MOVE_WORDS or sorted(a) != sorted(b):
        return False
    diff = [i for i, (x, y) in enumerate(zip(a, b, strict=True)) if x != y]
    if not diff:
        return True
    # A shared word at the window's edge may belong to the moved block, so try
    # every window that covers the differences, not only the tightest one.
    for start in range(diff[0] + 1):
        for end in range(diff[-1] + 1, len(a) + 1):
            x, y = a[start:end], b[start:end]
            cuts = (cut for cut in range(1, len(x)) if x[cut] == y[0])
            if any(x[cut:] + x[:cut] == y for cut in cuts):
                return True
    return False


def same_question(a: str, b: str) -> bool:
    """True when ``a`` and ``b`` ask the same question (see the module docstring)."""
    key_a, key_b = question_key(a), question_key(b)
    if not key_a or not key_b:
        return False
    return key_a == key_b or _one_block_moved(key_a, key_b)


def matching_entries(query: str, entries: Sequence[QARecord], *, top_k: int) -> list[QARecord]:
    """The entries that answered ``query`` (the same question), newest first, at most
    ``top_k``. An answer given more than once (a session written before
    ``SessionStore.append`` kept identical entries once) is returned once: its newest entry."""
    found: dict[str, QARecord] = {}
    for entry in reversed(entries):
        if entry.answer not in found and same_question(query, entry.question):
            found[entry.answer] = entry
    return list(found.values())[:top_k]
