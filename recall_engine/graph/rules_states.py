"""State patterns as data: sentences that say what holds for someone now.

Relation patterns (``rules_relations``) need an entity on both sides. A state is
often a plain word or phrase: "my favourite food is sushi", "I'm single again",
"I feel exhausted", "my back pain is much worse", "I became a teacher". Each
``StatePattern`` is a regex with a ``subj`` group (a pronoun or name the
extractor has already spotted, so "I" is the speaker), an ``obj`` group (or a
fixed ``value``: "broke up with" means single) and, for families keyed by kind,
a ``kind`` group ("favourite *food*"). Its ``examples`` are test cases:
(sentence, predicate, object), read with the speaker "Ann".
"""

from __future__ import annotations

from dataclasses import dataclass

import regex

from recall_engine.graph.lexicon import NP_STOP
from recall_engine.graph.rules_ends import END_PATTERNS
from recall_engine.graph.rules_kinds import PET_NOUNS, SWITCHED_WHAT, value_kind
from recall_engine.graph.state_pattern import (
    ADVERBS,
    BE,
    CONDITIONS,
    DEGREE,
    KIN,
    NAME,
    NP,
    SUBJ,
    THEN,
    S,
    StatePattern,
)
from recall_engine.graph.supersession import is_occupation

_PET_HAVE = (
    THEN + r"(?:(?:'ve|\s+have|\s+has|\s+had)" + THEN + r"(?:\s+(?:got|adopted))?"
    r"|\s+got|\s+adopted"
    r"|\s+used\s+to\s+have|(?:'s)?\s+(?:new\s+)?pet\s+(?:is|used\s+to\s+be))\s+"
)
"""How a pet is had, after its owner: "have", "just adopted", "'s new pet is"."""
_A_PET_NAMED = (
    r"(?:a|an)\s+(?!(?:new\s+|baby\s+|little\s+)*" + KIN + r"\b)(?:new\s+)?(?:[\p{L}\-]+\s+)?"
    r"(?P<species>[\p{L}\-]+)\s+(?:named|called)\s+" + NAME
)
"""A pet and its name: "a black cat called Shadow" (not "a baby girl named Mia")."""

STATE_PATTERNS: tuple[StatePattern, ...] = (
    S(
        "favourite",
        "favourite_{kind}",
        SUBJ + r"(?:'s)?\s+(?:(?:absolute|all-time|new|current)\s+)?(?:favou?rite|preferred)\s+"
        r"(?P<kind>\p{L}+(?:\s+\p{L}+)?)\s+(?:is|are|has\s+become|became|used\s+to\s+be)\s+"
        r"(?:(?:now|still|definitely|probably|easily)\s+)?" + NP,
        keywords=r"favou?rite|preferred",
        examples=(
            ("My favourite food is sushi now.", "favourite_food", "sushi"),
            ("My favorite band is The Cure.", "favourite_band", "The Cure"),
            ("My favourite drink used to be coffee.", "favourite_drink", "coffee"),
        ),
    ),
    S(
        "favourite-first",
        "favourite_{kind}",
        # the value first: "Pizza is my favourite food now", "Green is Ann's favourite colour"
        r"(?:\G|(?<=[,;:]\s))(?:(?:honestly|actually|well|now|lately|these\s+days),?\s+)?"
        r"(?!(?:that|this|it|which|what|who|there|here|mine|yours|so|and|but)\b)"
        r"(?P<obj>[\p{L}\d][\p{L}\d\-']*(?:[ \t]+[\p{L}\d][\p{L}\d\-']*){0,2})\s+"
        r"(?:is|are|has\s+become|became)\s+(?:(?:now|still|definitely|probably|easily)\s+)?"
        + SUBJ
        + r"(?:'s)?\s+(?:(?:absolute|all-time|new|current)\s+)?(?:favou?rite|preferred)\s+"
        r"(?P<kind>\p{L}+(?:\s+(?!(?:now|these|again|ever|of|by|too|at|in)\b)\p{L}+)?)"
        r"(?=\s*(?:[.,!?;:)]|$)|\s+(?:now|these\s+days|again|ever|of\s+all|by\s+far|too)\b)",
        keywords=r"favou?rite|preferred",
        examples=(
            ("Pizza is my favourite food now.", "favourite_food", "Pizza"),
            ("Green is my favorite color these days.", "favourite_color", "Green"),
            ("Honestly, jazz is my favourite music.", "favourite_music", "jazz"),
        ),
    ),
    S(
        "relationship-status",
        "relationship_status",
        SUBJ
        + BE
        + r"\s+"
        + ADVERBS
        + r"(?P<obj>single|married|engaged|divorced|widowed|separated)\b",
        keywords=r"single|married|engaged|divorced|widowed|separated",
        shared=True,
        examples=(("I'm single again.", "relationship_status", "single"),),
    ),
    S(
        "got-married",
        "relationship_status",
        SUBJ + r"\s+(?:(?:just|finally|recently)\s+)?got\s+(?P<obj>married|engaged|divorced)\b",
        keywords=r"\bgot\b",
        shared=True,
        examples=(("I just got engaged!", "relationship_status", "engaged"),),
    ),
    S(
        "separated",
        "relationship_status",
        # the verb: "Tom and I separated", "we divorced in 2020" (not "I separated the eggs")
        SUBJ + r"(?:'ve|\s+have|\s+had)?\s+(?:(?:just|finally|recently|officially|legally)\s+)?"
        r"(?P<obj>separated|divorced)\b"
        r"(?!\s+(?:the|a|an|them|it|our|my|his|her|their|these|those|this|that)\b)",
        keywords=r"separated|divorced",
        shared=True,
        examples=(
            ("Tom and I separated.", "relationship_status", "separated"),
            ("We divorced in 2020.", "relationship_status", "divorced"),
        ),
    ),
    S(
        "broke-up-with",
        "ended_relationship",
        SUBJ
        + r"\s+(?:(?:just|finally|recently)\s+)?(?:broke\s+up|split\s+up)\s+with\s+"
        + r"(?:(?:my|his|her|their|our)\s+)?"
        + NP,
        keywords=r"broke|split",
        examples=(
            ("I broke up with Tom last month.", "ended_relationship", "Tom"),
            ("I broke up with my boyfriend.", "ended_relationship", "boyfriend"),
        ),
    ),
    S(
        "broke-up",
        "ended_relationship",
        SUBJ + r"\s+(?:(?:just|finally|recently)\s+)?(?:broke\s+up|split\s+up)\b(?!\s+with)",
        keywords=r"broke|split",
        value="partner",
        shared=True,
        examples=(("We broke up in May.", "ended_relationship", "partner"),),
    ),
    S(
        "pet",
        "has_pet",
        SUBJ + _PET_HAVE + _A_PET_NAMED,
        keywords=r"named|called",
        kinded=True,
        examples=(
            ("I have a beagle named Biscuit.", "has_pet", "Biscuit"),
            ("We adopted a black cat called Shadow.", "has_pet_cat", "Shadow"),
            ("My pet is a rabbit named Clover.", "has_pet_rabbit", "Clover"),
            ("I used to have a dog named Rex.", "has_pet_dog", "Rex"),
            ("I also got a dog named Max.", "has_pet_dog", "Max"),
            ("We have just adopted a kitten called Mochi.", "has_pet_cat", "Mochi"),
        ),
    ),
    S(
        "pet-and",
        "has_pet",
        # the second of two: "I have a cat named Luna and a dog named Rex"
        SUBJ + _PET_HAVE + r"(?:a|an)\s+[^.!?;]{1,40}?\s+(?:named|called)\s+(?-i:\p{Lu})[\p{L}\-]*"
        r",?\s+and\s+(?:also\s+)?" + _A_PET_NAMED,
        keywords=r"named|called",
        kinded=True,
        examples=(("I have a cat named Luna and a dog named Rex.", "has_pet_dog", "Rex"),),
    ),
    S(
        "child",
        "has_child",
        SUBJ + r"(?:'ve|\s+have|\s+has|\s+had)\s+(?:a|an)\s+"
        r"(?:(?:new|baby|little|newborn|second|third|first)\s+)*(?:son|daughter|boy|girl|child|kid)"
        r"\s+(?:named|called)\s+" + NAME,
        keywords=r"named|called",
        examples=(("We had a baby girl named Mia.", "has_child", "Mia"),),
    ),
    S(
        "pet-died",
        "ended_pet",
        SUBJ
        + r"\s+(?:(?:old|sweet|poor|beloved|first|other)\s+)*(?:\p{L}+\s+)?"
        + PET_NOUNS
        + r",?\s+"
        + NAME
        + r",?\s+(?:(?:has|had|sadly|just|finally)\s+)*"
        r"(?:died|passed\s+away|ran\s+away|was\s+put\s+down)",
        keywords=r"died|passed|ran\s+away|put\s+down",
        examples=(("Sadly our old dog Rex died in May.", "ended_pet", "Rex"),),
    ),
    S(
        "pet-died-kind",
        "ended_pet",
        # a pet called by its species only: "our dog died" ends the one dog held
        SUBJ + r"(?:'s)?\s+(?:(?:old|sweet|poor|beloved|first|other|family|little)\s+)*"
        r"(?P<obj>" + PET_NOUNS + r"),?\s+(?:(?:has|had|sadly|just|finally|recently)\s+)*"
        r"(?:died|passed\s+away|ran\s+away|was\s+put\s+(?:down|to\s+sleep))",
        keywords=r"died|passed|ran\s+away|put\s+(?:down|to\s+sleep)",
        kinded=True,
        examples=(
            ("Our dog died last week.", "ended_pet_dog", "dog"),
            ("My old cat sadly passed away.", "ended_pet_cat", "cat"),
        ),
    ),
    S(
        "named-died",
        "ended_pet",
        r"(?<!\p{L}'s\s)(?<![\p{L}\-])" + NAME + r"\s+(?:(?:has|had|sadly|just|finally)\s+)*"
        r"(?:died|passed\s+away|ran\s+away|was\s+put\s+down)",
        keywords=r"died|passed|ran\s+away|put\s+down",
        examples=(("Sadly Biscuit died in the spring.", "ended_pet", "Biscuit"),),
    ),
    S(
        "pet-gone",
        "ended_pet",
        SUBJ + r"(?:'ve|\s+have|\s+had)?\s+(?:(?:just|finally|sadly|recently)\s+)?"
        r"(?:(?:had\s+to\s+)?(?:gave\s+away|give\s+away|re-?homed?|gave\s+up)"
        r"|(?:no\s+longer|don't|do\s+not)\s+have|lost)\s+(?:(?:my|our|his|her|their|the)\s+)?"
        r"(?:(?:\p{L}+\s+)?" + PET_NOUNS + r"\s+)?" + NAME,
        keywords=r"gave|give|re-?home|longer|have|lost",
        examples=(
            ("We had to rehome our cat Shadow.", "ended_pet", "Shadow"),
            ("I gave away Nugget last week.", "ended_pet", "Nugget"),
            ("We lost our parrot Kiwi in March.", "ended_pet", "Kiwi"),
        ),
    ),
    S(
        "pet-given-away",
        "ended_pet",
        SUBJ + r"(?:'ve|\s+have|\s+had)?\s+(?:(?:just|finally|sadly|recently)\s+)?"
        r"(?:had\s+to\s+)?(?:gave|give|given)\s+" + NAME + r"\s+(?:away|up)\b",
        keywords=r"gave|give",
        examples=(("We had to give Luna away.", "ended_pet", "Luna"),),
    ),
    S(
        "pet-gone-kind",
        "ended_pet",
        SUBJ + r"(?:'ve|\s+have|\s+had)?\s+(?:(?:just|finally|sadly|recently)\s+)?"
        r"(?:(?:had\s+to\s+)?(?:gave\s+away|give\s+away|re-?homed?|gave\s+up)"
        r"|no\s+longer\s+(?:have|own)|(?:don't|do\s+not|doesn't|does\s+not)\s+(?:have|own)"
        r"(?=(?:\s+[\p{L}']+){1,4}\s+any\s*more\b))\s+"
        r"(?:(?:my|our|his|her|their|the|a|an)\s+)?(?:\p{L}+\s+)?(?P<obj>" + PET_NOUNS + r")\b"
        r"(?!\s+(?-i:\p{Lu}))",
        keywords=r"gave|give|re-?home|longer|have|own",
        kinded=True,
        examples=(
            ("I no longer have a dog.", "ended_pet_dog", "dog"),
            ("We don't have a cat anymore.", "ended_pet_cat", "cat"),
            ("We had to rehome our kitten.", "ended_pet_cat", "kitten"),
            ("I gave away my pet last week.", "ended_pet_pet", "pet"),
        ),
    ),
    S(
        "mood",
        "feels",
        # "felt" only after have/be ("I've felt calmer"): "I felt tiny" tells a moment
        SUBJ
        + r"(?:(?:"
        + BE
        + r"|'ve|\s+have|\s+has)(?:\s+been)?\s+(?:feel(?:s|ing)?|felt)|\s+feel(?:s|ing)?)\s+"
        + DEGREE
        + r"(?P<obj>\p{L}+(?:\s+(?:out|up|down)\b)?)",
        keywords=r"\bfe(?:el|lt)",
        examples=(
            ("I feel exhausted these days.", "feels", "exhausted"),
            ("I'm feeling much calmer now.", "feels", "calmer"),
            ("I feel burned out lately.", "feels", "burned out"),
            ("I've felt calmer since spring.", "feels", "calmer"),
        ),
    ),
    S(
        "condition",
        "condition_{kind}",
        SUBJ + r"(?:'s)?\s+(?P<kind>(?:\p{L}+\s+)?" + CONDITIONS + r")\s+"
        r"(?:is|are|has\s+been|have\s+been|got|gets|seems|feels)\s+"
        + DEGREE
        + r"(?P<obj>better|worse|gone|mild|severe|bad|terrible|fine|okay|manageable)\b",
        keywords=r"pain|ache|migraine|allerg|asthma|anxiety|insomnia|cough|symptom|pressure|injury|sleep|stress",
        examples=(("My back pain is much worse.", "condition_back_pain", "worse"),),
    ),
    S(
        "became",
        "works_as",
        SUBJ + r"(?:'ve|\s+have)?\s+(?:(?:just|recently|finally|now|officially)\s+)?"
        r"(?:became|become|becomes|got\s+(?:a\s+)?(?:new\s+)?job\s+as"
        r"|(?:started|took)\s+(?:a\s+(?:new\s+)?job\s+as|(?:working\s+)?as)|retrained\s+as"
        r"|trained\s+as)\s+(?:a|an)\s+" + NP,
        keywords=r"bec[oa]me|\bas\b",
        examples=(
            ("I became a teacher last year.", "works_as", "teacher"),
            ("I started a new job as a pilot.", "works_as", "pilot"),
        ),
    ),
    S(
        "switched",
        "prefers",
        SUBJ + r"(?:'ve|\s+have)?\s+(?:(?:just|recently|finally|now|completely|since)\s+)?"
        r"(?:switched|made\s+the\s+switch|changed\s+over)\s+" + SWITCHED_WHAT + r"(?:over\s+)?"
        r"(?:from\s+(?:\p{L}+\s+){1,3}?)?to\s+(?:(?:a|an|the|being\s+an?)\s+)?" + NP,
        keywords=r"switch|changed\s+over",
        occupation_predicate="works_as",
        kinded=True,
        examples=(
            ("I switched to green tea.", "prefers", "green tea"),
            ("I switched from coffee to tea last month.", "prefers", "tea"),
            ("I switched to teaching.", "works_as", "teaching"),
            ("I switched my phone to a Pixel.", "prefers_phone", "Pixel"),
            ("We switched banks to Monzo last year.", "prefers_bank", "Monzo"),
            ("I switched to rooibos for my evening drink.", "prefers_drink", "rooibos"),
        ),
    ),
    # Ends with no new value (core.facts.ENDED_PREFIX): "quit", "no longer", "moved out".
    *END_PATTERNS,
)
_KEYWORDS = {k: regex.compile(k) for k in dict.fromkeys(p.keywords for p in STATE_PATTERNS)}
"""Each distinct keyword regex once: patterns that share one share its search."""
_COMPILED = tuple(
    (_KEYWORDS[p.keywords], regex.compile(p.pattern, regex.IGNORECASE)) for p in STATE_PATTERNS
)
_ENDS = frozenset({"anymore", "any"})
_ARTICLES = frozenset({"a", "an", "the"})  # "switched to matcha a while ago": matcha
_JOBS = frozenset({"job", "position", "career", "role"})
_NOT_MOODS = frozenset({"like", "that", "as", "about", "for", "when", "if", "it", "the", "a"})


@dataclass(frozen=True, slots=True)
class StateMatch:
    """A state found in a sentence: the subject's offset, predicate and object span."""

    pattern: StatePattern
    subject_start: int
    """-1: the speaker's (a pattern without a subject)."""
    predicate: str
    value: str
    start: int
    end: int
    raw: str


def find_states(text: str, start: int, end: int) -> list[StateMatch]:
    """States stated in ``text[start:end]`` (one sentence), left to right."""
    out = []
    lowered = text[start:end].lower()  # keywords are lower case: a cheap gate
    gate: dict[regex.Pattern[str], bool] = {}
    for pattern, (keywords, compiled) in zip(STATE_PATTERNS, _COMPILED, strict=True):
        if keywords not in gate:
            gate[keywords] = keywords.search(lowered) is not None
        if not gate[keywords]:
            continue
        for m in compiled.finditer(text, start, end):
            found = _match(pattern, m)
            if found is not None:
                out.append(found)
    return sorted(out, key=lambda s: (s.subject_start, s.start))


def _match(pattern: StatePattern, m: regex.Match[str]) -> StateMatch | None:
    kind = m.groupdict().get("kind")
    predicate = pattern.predicate
    if kind is not None:
        predicate = predicate.format(kind="_".join(kind.lower().split()))
    if pattern.value is not None:  # the words themselves stand for the value
        at = m.end("subj")
        raw = " ".join(m.string[at : m.end()].split())
        return StateMatch(pattern, _subject(m), predicate, pattern.value, at, m.end(), raw)
    words: list[str] = []
    for word in m.group("obj").split():
        if (
            word.lower() in NP_STOP
            or word.lower() in _ENDS
            or (words and word.lower() in _ARTICLES)
        ):
            break
        words.append(word)
    if not words or (pattern.predicate == "feels" and words[0].lower() in _NOT_MOODS):
        return None
    if pattern.occupation and not (words[-1].lower() in _JOBS or is_occupation(words[-1])):
        return None
    value = " ".join(words)
    if pattern.occupation_predicate and is_occupation(value):
        predicate = pattern.occupation_predicate
    elif pattern.kinded:
        kind = value_kind(m, value, m.start("obj") + len(value))
        predicate = f"{predicate}_{kind}" if kind else predicate
    said = m.end("subj") if "subj" in m.groupdict() else m.end("obj")
    raw = " ".join(m.string[said : m.start("obj")].split()) or " ".join(
        m.string[m.end("obj") : m.end()].split()
    )
    return StateMatch(
        pattern, _subject(m), predicate, value, m.start("obj"), m.start("obj") + len(value), raw
    )


def _subject(m: regex.Match[str]) -> int:
    """Where the subject starts; -1 for a pattern said of the speaker."""
    return m.start("subj") if "subj" in m.groupdict() else -1
