"""Word lists BROAD reads: which words name an item of an asked kind, and units.

Data, kept apart from the logic: common English hyponyms ("a cat" is a pet, "a
marathon" a race), the entity types a kind of place or person has, and the units
a total may be asked in. A kind not listed here still matches sentences that use
its own word ("my favourite book is ...").
"""

from __future__ import annotations

import functools


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


@functools.lru_cache(maxsize=1 << 16)
def singular(word: str) -> str:
    """A plural English noun made singular by its common endings (``cities`` ->
    ``city``, ``races`` -> ``race``); other words unchanged."""
    w = word.lower()
    if len(w) <= 3 or w.endswith(("ss", "us", "is")):
        return w
    if w.endswith("ies"):
        return w[:-3] + "y"
    if w.endswith(("ches", "shes", "xes", "sses", "zes")):
        return w[:-2]
    if w.endswith("s"):
        return w[:-1]
    return w


_ANIMALS = """cat kitten dog puppy pup parrot bird budgie canary hamster rabbit bunny
    guinea-pig turtle tortoise fish goldfish snake lizard gecko horse pony ferret mouse
    rat chinchilla hedgehog iguana cockatiel beagle labrador poodle terrier retriever
    spaniel bulldog collie husky shepherd corgi dachshund pug chihuahua"""

MEMBERS: dict[str, frozenset[str]] = {
    "pet": _words(_ANIMALS),
    "animal": _words(_ANIMALS + " cow goat sheep pig chicken duck"),
    "race": _words(
        "marathon half-marathon 10k 5k 15k 21k ultra ultramarathon triathlon race relay"
    ),
    "book": _words("book novel memoir biography autobiography cookbook thriller"),
    "instrument": _words(
        "guitar piano violin cello drums drum flute saxophone trumpet ukulele bass harp clarinet"
    ),
    "sport": _words(
        "football soccer tennis basketball volleyball baseball golf swimming cycling running "
        "hockey rugby cricket badminton skiing snowboarding surfing climbing boxing rowing"
    ),
    "language": _words(
        "english french spanish german italian portuguese japanese chinese mandarin korean "
        "arabic russian dutch swedish greek hindi"
    ),
    "car": _words("car suv van truck sedan hatchback convertible jeep pickup"),
    "vehicle": _words("car suv van truck bike bicycle motorbike motorcycle scooter boat"),
    "course": _words("course class workshop seminar lesson"),
    "concert": _words("concert gig show festival"),
    "trip": _words("trip vacation holiday journey getaway"),
}
"""Kind -> words that name an item of it."""

ENTITY_KINDS: dict[str, frozenset[str]] = {
    "city": frozenset({"LOCATION", "GPE", "PLACE"}),
    "town": frozenset({"LOCATION", "GPE", "PLACE"}),
    "country": frozenset({"LOCATION", "GPE", "PLACE"}),
    "place": frozenset({"LOCATION", "GPE", "PLACE"}),
    "location": frozenset({"LOCATION", "GPE", "PLACE"}),
    "destination": frozenset({"LOCATION", "GPE", "PLACE"}),
    "company": frozenset({"ORG"}),
    "organization": frozenset({"ORG"}),
    "employer": frozenset({"ORG"}),
}
"""Kind -> the entity types of its items (a place named in the sentence is a city)."""

PLACE_VERBS = _words(
    "visit visited visiting went go going travelled traveled travel flew fly moved move "
    "live lived living toured tour stayed stay trip holiday vacation been"
)
"""A place is one of the subject's only when the sentence goes, lives or travels there."""

UNITS: dict[str, tuple[str, ...]] = {
    "km": ("km", "kms", "kilometre", "kilometres", "kilometer", "kilometers"),
    "mile": ("mile", "miles", "mi"),
    "hour": ("hour", "hours", "hrs", "hr", "h"),
    "minute": ("minute", "minutes", "mins", "min"),
    "page": ("page", "pages"),
    "kg": ("kg", "kgs", "kilo", "kilos", "kilogram", "kilograms"),
    "money": ("$", "dollar", "dollars", "usd", "euro", "euros", "eur", "€", "£", "pound", "pounds"),
    "dollar": ("$", "dollar", "dollars", "usd"),
    "euro": ("euro", "euros", "eur", "€"),
    "kilometre": ("km", "kms", "kilometre", "kilometres", "kilometer", "kilometers"),
    "kilometer": ("km", "kms", "kilometre", "kilometres", "kilometer", "kilometers"),
}
"""A unit a total may be asked in -> how sentences write it."""

END_WORDS = _words("sold gave lost died passed quit stopped left ended returned rehomed broke")
"""A later sentence of the subject naming an item with one of these ends it."""

IRREGULAR: dict[str, str] = {
    past: base
    for base, forms in {
        "run": "ran",
        "go": "went gone",
        "swim": "swam swum",
        "ride": "rode ridden",
        "eat": "ate eaten",
        "see": "saw seen",
        "buy": "bought",
        "write": "wrote written",
        "fly": "flew flown",
        "drive": "drove driven",
        "take": "took taken",
        "make": "made",
        "meet": "met",
        "give": "gave given",
        "get": "got gotten",
        "begin": "began begun",
        "sing": "sang sung",
        "teach": "taught",
        "catch": "caught",
        "think": "thought",
        "bring": "brought",
        "spend": "spent",
        "lose": "lost",
        "win": "won",
        "sell": "sold",
        "leave": "left",
        "read": "read",
        "build": "built",
        "draw": "drew drawn",
        "grow": "grew grown",
        "know": "knew known",
        "speak": "spoke spoken",
        "find": "found",
        "hold": "held",
        "keep": "kept",
        "sleep": "slept",
        "feel": "felt",
        "hear": "heard",
        "pay": "paid",
        "bake": "baked",
        "cook": "cooked",
        "paint": "painted",
    }.items()
    for past in forms.split()
}
"""Irregular past forms -> the verb: "ran" answers "How many times did Ann run?"."""
