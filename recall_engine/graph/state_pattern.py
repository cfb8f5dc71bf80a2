"""The parts state patterns are written in: ``StatePattern`` and shared regex fragments.

``rules_states`` (what holds now) and ``rules_ends`` (what stopped holding) write
their patterns with these; see ``rules_states`` for how a pattern reads.
"""

from __future__ import annotations

from dataclasses import dataclass

from recall_engine.core.graph import EntityType

SUBJ = r"(?P<subj>\b\p{L}+)"
NP = r"(?P<obj>[\p{L}\d][\p{L}\d\-]*(?:[ \t]+[\p{L}\d][\p{L}\d\-]*){0,3})"
BE = r"(?:'m|'s|'re|\s+am|\s+is|\s+are|\s+was)"
ADVERBS = r"(?:(?:now|officially|finally|happily|newly|just|recently|still|single|again)\s+)*"
THEN = r"(?:\s+(?:also|just|finally|recently|now))?"
"""One adverb between a subject and its verb, or an auxiliary and its participle
("I also got", "we have just adopted")."""
DEGREE = (
    r"(?:(?:really|very|so|much|a\s+lot|a\s+bit|quite|pretty|super|more|less|slightly"
    r"|getting|way|far|now|finally|even)\s+)*"
)

# Family words a "named X" may follow instead of an animal: general English.
KIN = r"(?:son|daughter|baby|boy|girl|child|kid|twins?|brother|sister|cousin|nephew|niece|friend)"
NAME = r"(?P<obj>(?-i:\p{Lu})[\p{L}\-]*)"  # upper case even where the pattern ignores case
# A plain negation ("I don't live in Paris") ends nothing: only with "anymore" / "any
# longer" after it (a bounded look ahead) does it say that a value stopped holding.
NOT = r"(?:don't|do\s+not|doesn't|does\s+not)(?=[^.!?;]{0,60}?\bany\s*(?:more|longer)\b)"
HAVE = r"(?:'ve|\s+have|\s+has|\s+had)?"  # "I've left", "she has quit"
LEFT_FOR = (
    # what may follow "left <Name>" when it means leaving for good: the clause's end, a
    # span of time, a reason or what came next; "left Acme a review", "left Paris at
    # noon", "left Tom at home" are no ends
    r"(?=\s*(?:[.!?;,:)]|$)|\s+(?:for\s+good|behind|because|when|for\s+(?-i:\p{Lu})\p{L}*"
    r"|to\s+(?:join|start|move|become)|and\s+(?:then\s+|now\s+)?(?-i:\p{Ll})\p{L}*ed"
    r"|after\s+(?:[\p{L}\d]+\s+){1,2}(?:years?|months?)|(?:[\p{L}\d]+\s+){1,2}(?:years?|months?)\s+ago"
    r"|last\s+(?:year|month|spring|summer|autumn|fall|winter)|in\s+(?:\d{4}|(?-i:\p{Lu})\p{L}+))\b)"
)
CONDITIONS = (
    r"(?:pain|ache|headaches?|migraines?|allerg(?:y|ies)|asthma|anxiety|insomnia|cough"
    r"|symptoms|blood\s+pressure|injury|sleep|stress)"
)


@dataclass(frozen=True, slots=True)
class StatePattern:
    """One way of saying a state; ``predicate`` may hold ``{kind}``. A pattern with
    no ``subj`` group is said of a conversation turn's speaker ("Biscuit died"): its
    end only ends a value the speaker held."""

    id: str
    predicate: str
    pattern: str
    value: str | None = None
    confidence: float = 0.7
    occupation: bool = False
    """The object must name an occupation, its gerund, or a job itself."""
    occupation_predicate: str | None = None
    """The predicate instead when the object names an occupation ("switched to teaching")."""
    examples: tuple[tuple[str, str, str], ...] = ()
    keywords: str = ""
    """A cheap regex, in lower case, that every match contains: the full pattern runs
    only on sentences whose lower-cased text it finds (most sentences state no state)."""
    kinded: bool = False
    """The predicate carries the kind of its value when the sentence names it
    (``core.facts.kind_of``): a pet's species, what a switch changed ("my phone")."""
    shared: bool = False
    """A state a couple holds together ("Tom and I got engaged"): said of each person
    the subject joins with "and", not only of the one next to the verb."""
    object_type: EntityType | None = None
    """What a named value is (an employer is an organisation): it replaces a type the
    extractor only guessed from cue words ("resigned from Acme": not a place)."""


S = StatePattern
