"""The content words of a text, as the extractive answerer and coverage compare them:
lowercased word tokens, English stopwords dropped, stemmed (PyStemmer's English
Snowball stemmer; a crude plural strip where it is not installed)."""

from __future__ import annotations

import functools
import re
from collections.abc import Callable

_WORD = re.compile(r"\w+", re.UNICODE)

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


@functools.cache
def _stemmer() -> Callable[[str], str]:
    try:
        import Stemmer  # PyStemmer, a declared dependency; fast C extension
    except ImportError:  # degrade to a crude plural strip rather than fail an answer
        return lambda w: w[:-1] if len(w) > 3 and w.endswith("s") and not w.endswith("ss") else w
    stem = Stemmer.Stemmer("english").stemWord
    return functools.lru_cache(maxsize=65536)(stem)


MEMO_CHARS = 4000
"""Texts up to this long keep their terms (``_memo_terms``): a recall reads the
terms of each hit it ranks and measures, mostly the same chunks from one question
to the next; a longer text is tokenised each time, so the memo holds no large text."""


def terms(text: str) -> list[str]:
    """Lowercased, stopword-free, stemmed word tokens of ``text``.

    Args:
        text: any text.

    Returns:
        Its content words in order, repeats kept.
    """
    return list(_memo_terms(text) if len(text) <= MEMO_CHARS else _terms(text))


@functools.lru_cache(maxsize=8192)
def _memo_terms(text: str) -> tuple[str, ...]:
    return _terms(text)


def _terms(text: str) -> tuple[str, ...]:
    stem = _stemmer()
    return tuple(stem(w) for w in (m.lower() for m in _WORD.findall(text)) if w not in STOPWORDS)
