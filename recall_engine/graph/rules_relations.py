"""Relation patterns as data, and the matcher that applies them to a sentence.

A pattern is the verb phrase between two entity mentions ("X *moved to* Y").
The matcher takes each pair of mentions in a sentence, left to right and at most
``MAX_GAP`` characters apart, lowercases the words between them and full-matches
them against every pattern at once (one compiled alternation). Auxiliaries and
adverbs before the verb ("has recently moved to") and an article after it
("visited the") are allowed. ``reverse`` patterns are passive voice: in
"Y was founded by X" the subject is X.

Two patterns take a noun phrase rather than an entity as object: ``is_a`` and
``works_as`` ("Ada is a mathematician" -> CONCEPT "mathematician").
"""

from __future__ import annotations

from dataclasses import dataclass

import regex

from recall_engine.core.graph import EntityType
from recall_engine.graph.lexicon import NOT_KINDS, NOT_OBJECTS, NP_STOP
from recall_engine.graph.supersession import OCCUPATIONS

T = EntityType
MAX_GAP = 60
_EMPLOYED = "|".join(sorted(OCCUPATIONS - {"student"}, key=len, reverse=True))
"""Job titles that name an employer after "at" / "for" (a student's school is none)."""
RELATED_TO = "related_to"
RELATED_TO_CONFIDENCE = 0.3
MAX_COMENTION_PAIRS = 4


@dataclass(frozen=True, slots=True)
class PredicatePattern:
    """One way of saying a predicate; ``examples`` are checked by the tests."""

    predicate: str
    pattern: str
    confidence: float = 0.8
    subject_type: EntityType | None = None  # applied to a subject only guessed CONCEPT
    object_type: EntityType | None = None
    reverse: bool = False
    examples: tuple[str, ...] = ()


P = PredicatePattern
PATTERNS: tuple[PredicatePattern, ...] = (
    P(
        "works_for",
        r"(?:work(?:s|ed|ing)?|employed)\s+(?:for|at|by)|(?:employee|engineer|manager|director|ceo|cto|intern)\s+(?:at|of)"
        r"|(?:got\s+a\s+(?:new\s+)?job|started\s+(?:a\s+(?:new\s+)?job|working))\s+(?:at|with|for)"
        # "is a software engineer at Google": a job title, then its employer
        r"|(?:a|an)\s+(?:[\p{L}\-]+\s+){0,2}?(?:" + _EMPLOYED + r")\s+(?:at|for)",
        0.85,
        T.PERSON,
        T.ORGANIZATION,
        examples=(
            "Grace Hopper worked for Remington Rand.",
            "Ann got a new job at Apple.",
            "Ann is a software engineer at Google.",
        ),
    ),
    P(
        "worked_with",
        r"(?:work(?:s|ed|ing)?|collaborat(?:e|es|ed|ing))\s+(?:closely\s+)?(?:together\s+)?with|partnered\s+with",
        0.75,
        T.PERSON,
        T.PERSON,
        examples=("Dr. Ada Lovelace worked with Charles Babbage.",),
    ),
    P(
        "works_on",
        r"work(?:s|ed|ing)?\s+on",
        0.7,
        None,
        None,
        examples=("Ann works on Project Apollo.",),
    ),
    P(
        "moved_to",
        r"(?:mov(?:e|es|ed|ing)|relocat(?:e|es|ed|ing))\s+(?:back\s+)?to",
        0.85,
        T.PERSON,
        T.PLACE,
        examples=("Ruth moved to Lyon.",),
    ),
    P(
        "lives_in",
        r"(?:live(?:s|d)?|living|reside(?:s|d)?|residing|based|settled)\s+in",
        0.8,
        T.PERSON,
        T.PLACE,
        examples=("Ann lives in Paris.",),
    ),
    P(
        "born_in",
        r"(?:born|raised|grew\s+up)\s+in",
        0.85,
        T.PERSON,
        T.PLACE,
        examples=("Albert Einstein was born in Ulm.",),
    ),
    P(
        "from",
        r"(?:come|comes|came|originally|hails?)\s+from|from",
        0.6,
        None,
        T.PLACE,
        examples=("Helen is from Sweden.",),
    ),
    P(
        "visited",
        r"visit(?:s|ed|ing)?|(?:went|go|going|goes|travel(?:l)?ed|travel(?:l)?ing|flew|drove|came|trip)\s+(?:back\s+)?to|toured|been\s+to",
        0.7,
        T.PERSON,
        T.PLACE,
        examples=("Helen went to Paris.",),
    ),
    P(
        "founded",
        r"(?:co-?)?found(?:ed|s)|established|set\s+up",
        0.85,
        T.PERSON,
        T.ORGANIZATION,
        examples=("Steve Jobs founded Apple Computer Company.",),
    ),
    P(
        "founded",
        r"(?:co-?)?founded\s+by|established\s+by",
        0.85,
        T.PERSON,
        T.ORGANIZATION,
        reverse=True,
        examples=("Acme Corp was founded by John Smith.",),
    ),
    P(
        "joined",
        r"join(?:s|ed|ing)?|signed\s+up\s+(?:for|with)",
        0.75,
        T.PERSON,
        T.ORGANIZATION,
        examples=("Ann joined Google.",),
    ),
    P(
        "member_of",
        r"(?:a\s+)?member\s+of|part\s+of|belongs?\s+to",
        0.7,
        None,
        T.ORGANIZATION,
        examples=("Ann is a member of the Chess Club.",),
    ),
    P(
        "studied_at",
        r"stud(?:y|ies|ied|ying)\s+at|graduated\s+from|attend(?:s|ed|ing)?|enrolled\s+(?:at|in)",
        0.8,
        T.PERSON,
        T.ORGANIZATION,
        examples=("Ann studied at Stanford University.",),
    ),
    P(
        "married",
        r"married(?:\s+to)?|(?:got|gets)\s+married\s+to|wed",
        0.85,
        T.PERSON,
        T.PERSON,
        examples=("Ada Lovelace married William King.",),
    ),
    P(
        "dating",
        r"(?:dating|going\s+out\s+with|engaged\s+to|in\s+a\s+relationship\s+with)",
        0.75,
        T.PERSON,
        T.PERSON,
        examples=("Ben is dating Zoe.",),
    ),
    P(
        "met",
        r"met(?:\s+up)?(?:\s+with)?|meet(?:s|ing)?(?:\s+up)?(?:\s+with)?|ran\s+into",
        0.7,
        T.PERSON,
        T.PERSON,
        examples=("Ada Lovelace met Charles Babbage.",),
    ),
    P(
        "friend_of",
        r"(?:(?:best|good|close)\s+)?friends?\s+(?:with|of)",
        0.75,
        T.PERSON,
        T.PERSON,
        examples=("Ann is friends with Maria.",),
    ),
    P(
        "talked_to",
        r"(?:talk(?:s|ed|ing)?|spoke|speak(?:s|ing)?|chatted)\s+(?:to|with)",
        0.6,
        T.PERSON,
        T.PERSON,
        examples=("Ann talked to Maria.",),
    ),
    P(
        "manages",
        r"manag(?:es|ed|ing)|leads|led|heads|headed|runs|ran|directs",
        0.7,
        T.PERSON,
        None,
        examples=("Ann manages Team Rocket.",),
    ),
    P(
        "reports_to",
        r"report(?:s|ed)?\s+to",
        0.8,
        T.PERSON,
        T.PERSON,
        examples=("Ann reports to Maria.",),
    ),
    P(
        "created",
        r"wr(?:ote|ites|itten)|creat(?:ed|es)|buil(?:t|ds)|design(?:ed|s)|develop(?:ed|s)|paint(?:ed|s)|compos(?:ed|es)|publish(?:ed|es)|invent(?:ed|s)",
        0.75,
        None,
        None,
        examples=("Ada Lovelace wrote Sketch of the Analytical Engine.",),
    ),
    P(
        "created",
        r"(?:written|created|built|designed|developed|painted|composed|published|invented)\s+by",
        0.75,
        None,
        None,
        reverse=True,
        examples=("The novel Frankenstein was written by Mary Shelley.",),
    ),
    P(
        "owns",
        r"own(?:s|ed)?|bought|purchased|acquired|adopted",
        0.7,
        None,
        None,
        examples=("In 2018 Microsoft acquired GitHub.",),
    ),
    P(
        "likes",
        r"(?:really\s+)?(?:like(?:s|d)?|love(?:s|d)?|enjoy(?:s|ed)?|adore(?:s|d)?)",
        0.6,
        T.PERSON,
        None,
        examples=("Ann loves Paris.",),
    ),
    P(
        "located_in",
        r"(?:located|situated|headquartered)\s+in|(?<=(?:^|\s)(?:is|was|are|were)\s)in",
        0.7,
        None,
        T.PLACE,
        examples=("Lyon is in France.",),
    ),
    P(
        "is_a",
        r"(?<=(?:^|\s)(?:is|was|are|were|am|'s|'m)\s)(?:a|an|the)",
        0.7,
        None,
        None,
        examples=("Ada Lovelace is a Countess.",),
    ),
)

# Allowed before the verb: auxiliaries, contractions, adverbs, a "who" clause, an
# appositive (", a mathematician,"); never a negation ("I never worked at Acme").
# Allowed after: an article or possessive.
_BEFORE = (
    r"(?:,[^,]{1,40},\s*)?(?:,\s*)?(?:(?:who|which|that)\s+)?"
    r"(?:(?:'m|'s|'re|'ve|'d|'ll|am|is|are|was|were|be|been|being|has|have|had|will|would"
    r"|just|recently|finally|also|then|later|eventually|once|still|now|actually|really|even"
    r"|already|first|officially|soon|both|to|did|do|does|gonna|going\s+to|used"
    r"|formerly|previously)\s+)*"
)
_AFTER = r"(?:\s+(?:the|a|an|his|her|their|our|my|its|some|with))?"
_COMBINED = regex.compile(
    _BEFORE
    + "(?:"
    + "|".join(f"(?P<p{i}>{p.pattern})" for i, p in enumerate(PATTERNS))
    + ")"
    + _AFTER,
    regex.IGNORECASE,
)
_SPACES = regex.compile(r"\s+")


_AND = regex.compile(r"^(?:,\s*)?and\s+", regex.IGNORECASE)


@dataclass(frozen=True, slots=True)
class GapMatch:
    """What the words between two mentions say. ``coordinated`` when they start
    with "and": "X was born in Y and married Z" - Z's partner is X, not Y."""

    pattern: PredicatePattern
    raw: str
    coordinated: bool


def match_gap(gap: str) -> GapMatch | None:
    """The pattern the words between two mentions express, or None."""
    text = _SPACES.sub(" ", gap).strip()
    if not text or len(text) > MAX_GAP:
        return None
    rest = _AND.sub("", text)
    m = _COMBINED.fullmatch(rest)
    if m is None or m.lastgroup is None:
        return None
    return GapMatch(PATTERNS[int(m.lastgroup[1:])], rest, rest != text)


def canonical_predicate(raw: str) -> str | None:
    """The canonical predicate a verb phrase names ("has worked at" -> works_for),
    or None when no pattern knows it."""
    found = match_gap(raw)
    return found.pattern.predicate if found and not found.coordinated else None


# Patterns whose object is a noun phrase, not an entity: "Ada is a mathematician",
# "I joined a book club". A determiner must open the phrase, which keeps verbs
# out ("I went to see" is no visit).
NP_PATTERNS: tuple[tuple[str, str, float], ...] = (
    (
        "is_a",
        r"(?:'m|'s|is|am|was|are|were|used\s+to\s+be|(?:'ve|have|has)\s+been)"
        r"\s+(?:also\s+|now\s+)?(?:a|an)",
        0.7,
    ),
    ("works_as", r"(?:work(?:s|ed|ing)?|(?:'m|is|am|was)\s+working)\s+as\s+(?:a|an)", 0.7),
    (
        "visited",
        r"(?:went|go|going|been|travel(?:l)?ed|headed|took\s+a\s+trip)\s+to\s+(?:the|a|an|my|our|this|that|some)|visit(?:s|ed|ing)?\s+(?:the|a|an|my|our|this|that|some)",
        0.6,
    ),
    (
        "moved_to",
        r"(?:move[sd]?|moving|relocated)\s+(?:back\s+)?to\s+(?:the|a|an|my|our|this|that)",
        0.6,
    ),
    (
        "joined",
        r"(?:join(?:s|ed|ing)?|signed\s+up\s+for|enrolled\s+in)\s+(?:the|a|an|my|our|this|that|some)",
        0.6,
    ),
    ("works_for", r"work(?:s|ed|ing)?\s+(?:at|for)\s+(?:the|a|an|this|that)", 0.6),
    ("owns", r"(?:bought|purchased|adopted)\s+(?:a|an|the|my|our|this|that|some)", 0.6),
    (
        "created",
        r"(?:painted|wrote|made|built|drew|composed|created|designed|knitted|baked)\s+(?:a|an|the|my|our|this|that|some)",
        0.6,
    ),
)
_NP_PATTERNS = tuple(
    (predicate, regex.compile(rf"\s*{_BEFORE}(?:{pattern})\s+", regex.IGNORECASE), confidence)
    for predicate, pattern, confidence in NP_PATTERNS
)
_NP = regex.compile(r"[\p{L}][\p{L}\-+]*(?:[ \t]+[\p{L}][\p{L}\-+]*){0,3}")


def np_object_after(text: str, end: int, limit: int) -> tuple[str, str, float, int, int] | None:
    """After a subject ending at ``end``: "is a mathematician" -> (is_a,
    "mathematician", confidence, start, end), or None. At most three words,
    none at or past ``limit`` (where a date phrase starts)."""
    window_end = min(limit, end + MAX_GAP)
    for predicate, pattern, confidence in _NP_PATTERNS:
        m = pattern.match(text, end, window_end)
        if m is None:
            continue
        np = _NP.match(text, m.end(), min(limit, m.end() + 48))
        if np is None:
            return None
        words: list[str] = []
        for word in np.group().split()[:3]:
            if word.lower() in NP_STOP:
                break
            words.append(word.strip("-"))
        if not words or words[0].lower() in NOT_KINDS or words[-1].lower() in NOT_OBJECTS:
            return None
        phrase = " ".join(words)
        return predicate, phrase, confidence, np.start(), np.start() + len(phrase)
    return None
