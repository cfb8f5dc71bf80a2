"""The kind of a state's value a sentence names: a pet's species, what a switch changed.

A switch replaces only a preference of its own kind and an end that names only a
species ends the held pet of that species (``core.facts.timeline``); the rules put
the kind read here into the predicate (``prefers_phone``, ``has_pet_cat``,
``ended_pet_dog``; ``core.facts.kind_of`` reads it back). The kind is read from the
sentence's own nouns, general English: "switched my phone to", "switched banks to",
"switched to rooibos for my evening drink", "a cat named Shadow".
"""

from __future__ import annotations

import itertools

import regex

from recall_engine.core.facts import ANY_KIND
from recall_engine.graph.lexicon import NP_STOP

# Animals kept as pets: general English.
PET_NOUNS = (
    r"(?:dog|puppy|pup|cat|kitten|kitty|rabbit|bunny|hamster|gerbil|guinea\s+pig|mouse|rat"
    r"|ferret|parrot|budgie|bird|canary|fish|goldfish|turtle|tortoise|lizard|snake|horse|pony"
    r"|pet)s?"
)
# A species' young or pet names, and kinds of bird, fish: the species an end names.
_SPECIES = {
    "puppy": "dog", "pup": "dog", "kitten": "cat", "kitty": "cat", "bunny": "rabbit",
    "parrot": "bird", "budgie": "bird", "canary": "bird", "goldfish": "fish", "pony": "horse",
    "tortoise": "turtle",
}  # fmt: skip
# What a switch changed, named before its values: "switched my phone to", "switched banks to".
SWITCHED_WHAT = (
    r"(?:(?:my|our|his|her|their)\s+(?P<what>\p{L}+(?:\s+(?!over\b)\p{L}+)?)\s+"
    r"|(?P<what>\p{L}{2,}s)\s+(?=(?:over\s+)?(?:from|to)\b))?"
)
_PET_WORD = regex.compile(PET_NOUNS, regex.IGNORECASE)
# What a switch was for, named after its value: "switched to rooibos for my evening drink".
_FOR_WHAT = regex.compile(
    r"\s+(?:for|as)\s+(?:my|our|his|her|their)\s+(?P<what>\p{L}+(?:\s+\p{L}+)?)", regex.IGNORECASE
)


def value_kind(m: regex.Match[str], value: str, value_end: int) -> str | None:
    """The kind of a ``kinded`` pattern's value the sentence names: a pet's species
    ("a cat named Shadow"; a pet of no known species has none), the species an end
    names ("no longer have a dog"; "pet": any), what a switch changed ("switched my
    phone to", "to rooibos for my evening drink").

    Args:
        m: The state pattern's match (its ``species`` or ``what`` group, if any).
        value: The value the match states.
        value_end: Where the value ends in ``m.string``.

    Returns:
        The kind in the singular ("phone", "cat"; ``ANY_KIND`` for an end of "a
        pet"), or None when the sentence names none.
    """
    groups = m.groupdict()
    if groups.get("species"):
        kind = _species(groups["species"])
        return None if kind == ANY_KIND else kind
    if "what" not in groups:  # an end that names a species
        return _species(value)
    what = groups["what"] or ""
    after = _FOR_WHAT.match(m.string, value_end) if not what else None
    words = (what or (after.group("what") if after else "")).split()
    kept = list(itertools.takewhile(lambda w: w.lower() not in NP_STOP, words))
    return _singular(kept[-1].lower()) if kept else None


def _species(word: str) -> str | None:
    """The species a pet word names ("kittens" -> cat), or None for another word."""
    if _PET_WORD.fullmatch(word) is None:
        return None
    one = _singular(word.lower())
    return _SPECIES.get(one, one)


def _singular(word: str) -> str:
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith(("ches", "shes", "sses", "xes")):
        return word[:-2]
    return word[:-1] if word.endswith("s") and not word.endswith("ss") and len(word) > 3 else word
