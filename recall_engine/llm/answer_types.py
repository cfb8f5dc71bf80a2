"""What a question asks for: its answer type, from its wh-word and head noun.

Rules are data (``ANSWER_TYPE_RULES``): an id, a pattern over the lowercased,
whitespace-collapsed question, and the type it gives; the first rule that
matches wins, so more specific rules come first. Head-noun rules ("what city",
"which year") use general English nouns for people, places, times and amounts,
nothing taken from any benchmark. A question no rule matches is ``DESCRIPTION``
(a "what"/"how" question answered by a sentence).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum


class AnswerType(StrEnum):
    PERSON = "person"
    PLACE = "place"
    TIME = "time"
    NUMBER = "number"
    REASON = "reason"
    LIST = "list"
    SUMMARY = "summary"
    YES_NO = "yes_no"
    DESCRIPTION = "description"


@dataclass(frozen=True)
class AnswerTypeRule:
    id: str
    pattern: re.Pattern[str]
    type: AnswerType


_PERSON_HEADS = (
    r"person|people|man|woman|men|women|friend|friends|author|artist|singer|player|"
    r"partner|spouse|husband|wife|boyfriend|girlfriend|colleague|manager|engineer|doctor|"
    r"teacher|leader|member|owner|founder|customer|user|child|kid|son|daughter|mother|"
    r"father|brother|sister|parent|parents"
)
_PLACE_HEADS = (
    r"city|cities|country|countries|place|places|town|towns|state|states|location|"
    r"locations|region|continent|island|village|address|venue|destination|park|neighbou?rhood"
)
_TIME_HEADS = r"time|date|day|days|year|years|month|months|week|weekend|season|hour|decade|century"
_AUX = r"is|are|was|were|am|do|does|did|can|could|will|would|shall|should|has|have|had|may|might"
_WH_HEAD = r"(?:what|which)(?: (?:kind|type|sort)s? of)?"


def _rule(rule_id: str, pattern: str, type_: AnswerType) -> AnswerTypeRule:
    return AnswerTypeRule(rule_id, re.compile(pattern), type_)


T = AnswerType
ANSWER_TYPE_RULES: tuple[AnswerTypeRule, ...] = (
    _rule(
        "summary",
        r"^(?:please )?(?:summari[sz]e|recap|sum up|give (?:me )?(?:a |an )?"
        r"(?:summary|overview|recap)|(?:a |an )?(?:summary|overview) of|tl;?dr)\b",
        T.SUMMARY,
    ),
    _rule("why", r"^(?:why|how come)\b", T.REASON),
    _rule(
        "what-cause",
        r"^what (?:\w+ )?(?:caused|causes|led to|leads to|made|makes|triggered|prompted|"
        r"motivated|inspired|was the (?:cause|reason|root cause)|is the (?:cause|reason)|"
        r"were the (?:causes|reasons))\b",
        T.REASON,
    ),
    _rule("when", r"^(?:when|since when|until when)\b", T.TIME),
    _rule("how-long-ago", r"^how long ago\b", T.TIME),
    _rule("how-many", r"^how (?:many|much|old|long|far|often|big|tall|high)\b", T.NUMBER),
    _rule("what-number", rf"^{_WH_HEAD} (?:number|amount|percentage|price|score)\b", T.NUMBER),
    _rule("where", r"^(?:where|from where)\b", T.PLACE),
    _rule("what-place", rf"^(?:in |at |to |from )?{_WH_HEAD} (?:{_PLACE_HEADS})\b", T.PLACE),
    _rule("what-time", rf"^(?:in |on |at )?{_WH_HEAD} (?:{_TIME_HEADS})\b", T.TIME),
    _rule("who", r"^(?:who|whom|whose|with whom|by whom)\b", T.PERSON),
    _rule("what-person", rf"^(?:with |for |to )?{_WH_HEAD} (?:{_PERSON_HEADS})\b", T.PERSON),
    _rule("list-verb", r"^(?:list|name|enumerate)\b", T.LIST),
    _rule("what-are-some", r"^(?:what|which) (?:are|were) (?:some|all|the)\b", T.LIST),
    _rule(
        "what-plural",
        rf"^{_WH_HEAD} (?:\w+ )?\w+(?<!s)s (?:do|does|did|are|were|have|has)\b",
        T.LIST,
    ),
    _rule("yes-no", rf"^(?:{_AUX})(?:n't)? \w", T.YES_NO),
)


def answer_type(question: str) -> AnswerType:
    """The answer type of ``question`` (first matching rule; DESCRIPTION if none)."""
    text = " ".join(question.lower().split())
    text = re.sub(r"^(?:so|and|but|ok|okay|hey|well|please|also)[, ]+", "", text)
    for rule in ANSWER_TYPE_RULES:
        if rule.pattern.search(text):
            return rule.type
    return T.DESCRIPTION
