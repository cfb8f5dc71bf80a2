"""What a sentence says besides its verb-phrase relations, for the rule extractor.

``PendingRelation`` is a relation found in a sentence before its spans become
entities; ``states`` reads what ``rules_states`` finds said of a person in the
sentence, ``comentions`` relates the names that share it and no relation.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import regex

from recall_engine.core.graph import EntityType
from recall_engine.core.names import normalize_name
from recall_engine.graph import rules_relations as rr
from recall_engine.graph.rules_entities import Span, guess_type
from recall_engine.graph.rules_events import Sentence
from recall_engine.graph.rules_mood import asserted
from recall_engine.graph.rules_states import find_states
from recall_engine.graph.supersession import is_occupation

T = EntityType


@dataclass(slots=True)
class PendingRelation:
    source: Span
    target: Span
    predicate: str
    raw: str
    confidence: float
    sentence: Sentence


def states(
    text: str,
    sentence: Sentence,
    spans: list[Span],
    all_spans: list[Span],
    speaker: str | None = None,
    *,
    later: bool = False,
) -> list[PendingRelation]:
    """What ``rules_states`` finds said of a pronoun or a person in the sentence (or,
    for a pattern without a subject, of a conversation turn's speaker), when the
    clause asserts it (``rules_mood``; ``later``: the sentence names a later time)."""
    out = []
    for state in find_states(text, sentence.start, sentence.end):
        if state.subject_start < 0:  # "Biscuit died": said of the speaker's own
            if speaker is None:
                continue
            subject: Span | None = Span(state.start, state.start, speaker, speaker, T.PERSON)
        else:
            subject = next(
                (
                    s
                    for s in spans
                    if s.start <= state.subject_start < s.end
                    and s.pronoun != "object"
                    and (s.pronoun is not None or can_hold(s, state.value))
                ),
                None,
            )
        if subject is None or not asserted(
            text, (sentence.start, sentence.end), (subject.start, subject.end), state.start,
            dated_later=later,
        ):  # fmt: skip
            continue
        # a name already spotted there ("Lyon") stays the same entity
        target = next((s for s in spans if s.start == state.start and s.pronoun is None), None)
        if target is None:
            surface = text[state.start : state.end]
            target = Span(state.start, state.end, surface, state.value, T.CONCEPT)
            all_spans.append(target)
        pattern = state.pattern
        if pattern.object_type is not None and only_guessed(target):
            target.type = pattern.object_type
        holders = [subject, *(partners(text, subject, spans) if pattern.shared else ())]
        out += [
            PendingRelation(
                holder, target, state.predicate, state.raw, pattern.confidence, sentence
            )
            for holder in holders
        ]
    return out


_AND = regex.compile(r"\s*,?\s+and\s+$", regex.IGNORECASE)


def partners(text: str, subject: Span, spans: list[Span]) -> list[Span]:
    """The people joined to ``subject`` by "and" before it: Tom in "Tom and I", Ann
    in "Ann and I" said by Tom."""
    out = []
    at = subject.start
    for span in reversed([s for s in spans if s.end <= at]):
        if _AND.fullmatch(text, span.end, at) is None:
            break
        if span.type is T.PERSON or span.pronoun == "subject":
            out.append(span)
        at = span.start
    return out


def only_guessed(span: Span) -> bool:
    """Whether a proper name's type comes from no more than the word before it
    ("from Acme": a place) or from nothing (CONCEPT), so what a pattern says it is
    wins. A description ("the engineering company") stays one: it names no value."""
    if span.pronoun is not None or span.name.isupper() or not span.name[:1].isupper():
        return False
    if span.type is T.CONCEPT:
        return True
    return span.type is T.PLACE and guess_type(span.name, False, "", set()) is T.CONCEPT


def can_hold(span: Span, value: str) -> bool:
    """Whether a named span can be the subject of a state: a person, or a name the
    rules could not type that takes an occupation ("Dmitri Moreau became a chef")."""
    return span.type is T.PERSON or (span.type is T.CONCEPT and is_occupation(value))


def comentions(
    spans: list[Span], related: set[tuple[str, str]], sentence: Sentence
) -> list[PendingRelation]:
    """Relate each pair of neighbouring distinct names in the sentence that no verb
    phrase related, at low confidence (``rules_relations.RELATED_TO``)."""
    distinct: list[Span] = []
    seen: set[str] = set()
    for span in spans:
        if span_key(span) not in seen:
            seen.add(span_key(span))
            distinct.append(span)
    out: list[PendingRelation] = []
    for a, b in itertools.pairwise(distinct):
        if len(out) >= rr.MAX_COMENTION_PAIRS:
            break
        if (span_key(a), span_key(b)) not in related and (span_key(b), span_key(a)) not in related:
            out.append(PendingRelation(a, b, rr.RELATED_TO, "", rr.RELATED_TO_CONFIDENCE, sentence))
    return out


def span_key(span: Span) -> str:
    """The key two mentions of one name share (``normalize_name``)."""
    return normalize_name(span.name)
