"""Name normalisation shared by the extractors and entity resolution.

Two surface forms of one name must normalise to one key: case, whitespace,
punctuation, curly quotes, honorifics ("Dr. Ada Lovelace") and possessives
("Caroline's") do not count.
"""

from __future__ import annotations

import unicodedata
from functools import lru_cache

import regex

HONORIFICS = frozenset(
    {"dr", "mr", "mrs", "ms", "miss", "mx", "prof", "professor", "sir", "dame", "lady", "lord"}
    | {"rev", "fr", "sr", "sra", "st", "capt", "col", "gen", "lt", "sgt", "president", "judge"}
)

_APOSTROPHES = str.maketrans({"’": "'", "‘": "'", "`": "'", "´": "'"})
_POSSESSIVE = regex.compile(r"(?:'s|')$", regex.IGNORECASE)
_HONORIFIC_PREFIX = regex.compile(
    r"^(?:(?:" + "|".join(sorted(HONORIFICS, key=len, reverse=True)) + r")\.?\s+)+",
    regex.IGNORECASE,
)
_NON_WORD = regex.compile(r"[^\p{L}\p{N}]+")
_ASCII_NON_WORD_TO_SPACE = str.maketrans(
    {chr(c): " " for c in range(128) if not (chr(c).isdigit() or "a" <= chr(c) <= "z")}
)
"""On casefolded ASCII text, ``_NON_WORD``'s runs are the runs of what this maps to a
space: translating and splitting gives the same key several times faster."""

MEMO_CHARS = 200
"""Names up to this long keep their key (``_memo_key``): entity names, mentions and
question names recur from one call to the next. A longer text (recall's coverage
compares a question's names with its whole context) is normalised each time, so the
memo holds no large text."""


def strip_possessive(text: str) -> str:
    """``"Lovelace's"`` -> ``"Lovelace"``, ``"James'"`` -> ``"James"``."""
    return _POSSESSIVE.sub("", text.translate(_APOSTROPHES).rstrip())


def strip_honorific(text: str) -> str:
    """``"Dr. Ada Lovelace"`` -> ``"Ada Lovelace"``; a bare honorific is kept."""
    stripped = _HONORIFIC_PREFIX.sub("", text.strip())
    return stripped or text.strip()


def normalize_name(name: str) -> str:
    """The comparison key of a name: NFKC, casefolded, honorific and possessive
    removed, every run of non-letters/digits one space. May return ``""``."""
    return _memo_key(name) if len(name) <= MEMO_CHARS else _key(name)


@lru_cache(maxsize=65536)
def _memo_key(name: str) -> str:
    return _key(name)


def _key(name: str) -> str:
    text = unicodedata.normalize("NFKC", name)
    text = strip_possessive(strip_honorific(text)).casefold()
    if text.isascii():
        return " ".join(text.translate(_ASCII_NON_WORD_TO_SPACE).split())
    return _NON_WORD.sub(" ", text).strip()


def normalize_identifier(value: str) -> str:
    """The key of an email, URL, code or ISO date: only case and outer space count."""
    return unicodedata.normalize("NFKC", value).strip().casefold()


def to_snake_case(text: str) -> str:
    """``"Works For"`` -> ``"works_for"``; ``""`` when nothing is left."""
    return _NON_WORD.sub("_", unicodedata.normalize("NFKC", text).casefold()).strip("_")
