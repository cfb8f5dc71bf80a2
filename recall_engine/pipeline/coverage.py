"""How well the returned context supports the question: ``metadata["coverage"]``.

Three general signals, each in [0, 1], none fitted per question:
- names: the share of the names and ids the question uses (``Caroline``,
  ``ERR-4012``; spotted by the graph's rule-based entity extractor) that the
  context mentions. A question about someone the context never names is not
  answered by it, however close its words are.
- terms: the share of the question's content words (stopwords dropped, stemmed)
  that occur in the context.
- dense: the best cosine similarity between the query and any chunk in scope,
  scaled from ``DENSE_FLOOR`` (0) to ``DENSE_CEILING`` (1).

``coverage`` is their weighted mean over the signals available (``WEIGHTS``; a
question with no names, or a lexical call with no query vector, uses the rest),
and ``coverage_low`` is ``coverage < LOW_COVERAGE``. The constants were chosen on
a swap benchmark (``bench.coverage``: each question against its own and another
conversation) and are the same for every question.

A query that shares no content word with anything in scope and whose best dense
similarity is under ``NOTHING_DENSE`` matches nothing: recall returns ``[]``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from recall_engine.core.hits import AnyHit, ChunkHit, RowHit
from recall_engine.core.names import normalize_name
from recall_engine.core.terms import terms
from recall_engine.graph.rules_entities import Claims, identifier_spans, name_spans

WEIGHTS = {"names": 0.5, "terms": 0.3, "dense": 0.2}
DENSE_FLOOR = 0.15
DENSE_CEILING = 0.6
LOW_COVERAGE = 0.5
NOTHING_DENSE = 0.25


@dataclass(frozen=True)
class Coverage:
    """The coverage of one result list and the signals behind it."""

    value: float
    low: bool
    signals: dict[str, float]

    def metadata(self) -> dict[str, object]:
        return {
            "coverage": self.value,
            "coverage_low": self.low,
            "coverage_signals": dict(self.signals),
        }


def question_names(question: str) -> list[str]:
    """Ids and names the question uses (a capitalised first word only when it is a
    known name; the wh-word never is)."""
    claims = Claims(len(question))
    found = [s.name for s in identifier_spans(question, claims)]
    spans, _ = name_spans(question, {0}, claims, None)
    found += [s.name for s in spans]
    return list(dict.fromkeys(n for n in found if normalize_name(n)))


def context_parts(hits: Sequence[AnyHit]) -> list[str]:
    """What the context shows, piece by piece: hit texts, speakers and document names."""
    parts = []
    for hit in hits:
        parts.append(hit.text)
        if isinstance(hit, ChunkHit):
            parts += [hit.speaker or "", hit.document_name]
    return parts


def scaled_dense(similarity: float) -> float:
    span = DENSE_CEILING - DENSE_FLOOR
    return min(1.0, max(0.0, (similarity - DENSE_FLOOR) / span))


def measure(question: str, hits: Sequence[AnyHit], *, best_dense: float | None) -> Coverage:
    """The coverage of ``hits`` for ``question`` (``best_dense``: the best query-chunk
    cosine in scope, None when the call has no query vector)."""
    if not hits:
        return Coverage(0.0, True, {})
    if all(isinstance(h, RowHit) for h in hits):  # Cypher rows answer the query itself
        return Coverage(1.0, False, {"rows": float(len(hits))})
    parts = context_parts(hits)
    text = " ".join(parts)
    signals: dict[str, float] = {}
    names = question_names(question)
    if names:
        shown = f" {normalize_name(text)} "
        signals["names"] = sum(f" {normalize_name(n)} " in shown for n in names) / len(names)
    wanted = set(terms(question))
    if wanted:
        shown_terms = set().union(*map(terms, parts))  # the joined text's, part by part
        signals["terms"] = len(wanted & shown_terms) / len(wanted)
    if best_dense is not None:
        signals["dense"] = scaled_dense(best_dense)
    weight = sum(WEIGHTS[k] for k in signals)
    value = sum(WEIGHTS[k] * v for k, v in signals.items()) / weight if weight else 0.0
    value = round(value, 4)
    return Coverage(value, value < LOW_COVERAGE, {k: round(v, 4) for k, v in signals.items()})


def matches_nothing(term_overlap: bool, best_dense: float | None) -> bool:
    """No content word in common with the scope and (when known) a dense similarity
    under ``NOTHING_DENSE``: the query matches nothing."""
    return not term_overlap and (best_dense is None or best_dense < NOTHING_DENSE)
