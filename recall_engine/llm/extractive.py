"""Offline answers: the context sentences that best match the question.

Deterministic lexical scoring, no model: tokens are lowercased, stopwords
dropped, words stemmed (Snowball English via PyStemmer). A sentence scores the
summed IDF of the distinct question terms it contains; ties go to the better
ranked item, then to the earlier sentence. Up to ``max_sentences`` sentences
scoring at least half the best are returned, best first.
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from recall_engine.core.hits import AnyHit

NO_CONTEXT_TEXT = "No context was retrieved for this question, so there is no answer to give."
NOT_IN_CONTEXT_TEXT = "The retrieved context does not contain an answer to this question."

_WORD = re.compile(r"\w+", re.UNICODE)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n\s*\n|\n(?=\s*[-*•]\s)")

_STOPWORDS_TEXT = """
    a about above after again against all am an and any are as at be because been before
    being below between both but by can could did do does doing down during each few for from
    further had has have having he her here hers herself him himself his how i if in into is it
    its itself just me more most my myself no nor not now of off on once only or other our ours
    ourselves out over own same she should so some such than that the their theirs them
    themselves then there these they this those through to too under until up very was we were
    what when where which while who whom why will with would you your yours yourself
    yourselves tell know please give find"""
STOPWORDS = frozenset(_STOPWORDS_TEXT.split())


@dataclass(frozen=True)
class Evidence:
    """One chosen sentence, the item it came from (rank order index) and its score."""

    sentence: str
    item_index: int
    score: float


@functools.cache
def _stemmer() -> Callable[[str], str]:
    try:
        import Stemmer  # PyStemmer, a declared dependency; fast C extension
    except ImportError:  # degrade to a crude plural strip rather than fail an answer
        return lambda w: w[:-1] if len(w) > 3 and w.endswith("s") and not w.endswith("ss") else w
    stem = Stemmer.Stemmer("english").stemWord
    return functools.lru_cache(maxsize=65536)(stem)


def terms(text: str) -> list[str]:
    """Lowercased, stopword-free, stemmed word tokens of ``text``."""
    stem = _stemmer()
    return [stem(w) for w in (m.lower() for m in _WORD.findall(text)) if w not in STOPWORDS]


def split_sentences(text: str) -> list[str]:
    """Split on sentence ends, blank lines and bullet starts; drop fragments."""
    pieces = (re.sub(r"\s+", " ", p).strip(" -*•") for p in _SENTENCE_END.split(text))
    return [p for p in pieces if len(p) >= 3]


def select_evidence(
    question: str, items: Sequence[AnyHit], *, max_sentences: int = 3
) -> list[Evidence]:
    """The sentences of ``items`` that best answer ``question``, best first (maybe none)."""
    wanted = set(terms(question))
    if not wanted or not items:
        return []
    candidates: list[tuple[int, int, str, set[str]]] = []
    for rank, item in enumerate(items):
        for position, sentence in enumerate(split_sentences(item.text)):
            candidates.append((rank, position, sentence, set(terms(sentence)) & wanted))
    n = len(candidates)
    df = {t: sum(1 for c in candidates if t in c[3]) for t in wanted}
    idf = {t: math.log(1.0 + n / df[t]) for t in wanted if df[t]}
    scored = [
        (sum(idf[t] for t in matched), rank, position, sentence)
        for rank, position, sentence, matched in candidates
        if matched
    ]
    if not scored:
        return []
    scored.sort(key=lambda s: (-s[0], s[1], s[2]))
    floor = scored[0][0] * 0.5
    chosen: list[Evidence] = []
    seen: set[str] = set()
    for score, rank, _position, sentence in scored:
        key = sentence.lower()
        if score < floor or len(chosen) == max_sentences:
            break
        if key not in seen:
            seen.add(key)
            chosen.append(Evidence(sentence=sentence, item_index=rank, score=round(score, 6)))
    return chosen
