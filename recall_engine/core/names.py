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


def strip_possessive(text: str) -> str:
    """``"Lovelace's"`` -> ``"Lovelace"``, ``"James'"`` -> ``"James"``."""
    return _POSSESSIVE.sub("", text.translate(_APOSTROPHES).rstrip())


def strip_honorific(text: str) -> str:
    """``"Dr. Ada Lovelace"`` -> ``"Ada Lovelace"``; a bare honorific is kept."""
    stripped = _HONORIFIC_PREFIX.sub("", text.strip())
    return stripped or text.strip()


@lru_cache(maxsize=65536)
def normalize_name(name: str) -> str:
    """The comparison key of a name: NFKC, casefolded, honorific and possessive
    removed, every run of non-letters/digits one space. May return ``""``."""
    text = unicodedata.normalize("NFKC", name)
    text = strip_possessive(strip_honorific(text))
    return _NON_WORD.sub(" ", text.casefold()).strip()


def normalize_identifier(value: str) -> str:
    """The key of an email, URL, code or ISO date: only case and outer space count."""
    return unicodedata.normalize("NFKC", value).strip().casefold()


def to_snake_case(text: str) -> str:
    """``"Works For"`` -> ``"works_for"``; ``""`` when nothing is left."""
    return _NON_WORD.sub("_", unicodedata.normalize("NFKC", text).casefold()).strip("_")
