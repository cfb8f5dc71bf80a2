"""BM25 over chunks: a tokenizer and an incrementally maintained inverted index.

Scores follow Lucene's BM25 (the ``lucene`` method of bm25s, checked by an
oracle test): idf = ln(1 + (N - df + 0.5) / (df + 0.5)) and
tf part = tf / (tf + k1 * (1 - b + b * dl / avgdl)). N, df and avgdl are taken
over the documents in the query's scope (the datasets asked for), so scoping a
query gives the same scores as a separate index per dataset.

The dense side's sentence rule (a chunk scored by its best sentence too) was
tried here and not kept (``docs/decisions.md``).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Sequence
from functools import lru_cache

import numpy as np
import regex

# Common English function words; content words, names and numbers stay.
STOPWORDS = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "but",
        "by",
        "for",
        "if",
        "in",
        "into",
        "is",
        "it",
        "no",
        "not",
        "of",
        "on",
        "or",
        "such",
        "that",
        "the",
        "their",
        "then",
        "there",
        "these",
        "they",
        "this",
        "to",
        "was",
        "will",
        "with",
        "i",
        "me",
        "my",
        "we",
        "our",
        "you",
        "your",
        "he",
        "him",
        "his",
        "she",
        "her",
        "its",
        "them",
        "what",
        "which",
        "who",
        "whom",
        "do",
        "does",
        "did",
        "doing",
        "have",
        "has",
        "had",
        "having",
        "am",
        "been",
        "being",
        "were",
        "so",
        "than",
        "too",
        "very",
        "can",
        "just",
        "should",
        "now",
        "would",
        "could",
        "also",
        "about",
        "from",
        "up",
        "down",
        "out",
        "over",
        "under",
        "again",
        "further",
        "once",
        "here",
        "when",
        "where",
        "why",
        "how",
        "all",
        "any",
        "both",
        "each",
        "few",
        "more",
        "most",
        "other",
        "some",
        "own",
        "same",
        "only",
        "s",
        "t",
        "don",
    ]
)

_TOKEN = regex.compile(r"[\p{L}\p{N}]+(?:['’][\p{L}]+)?")
# Scripts written without spaces between words: a run of them is indexed as
# overlapping character bigrams (the CJK baseline of Lucene's CJKAnalyzer), so
# "乌尔姆" matches inside "爱因斯坦出生于乌尔姆". A lone character stays a unigram.
_UNSPACED = regex.compile(
    r"[\p{Han}\p{Hiragana}\p{Katakana}\p{Thai}\p{Lao}\p{Khmer}\p{Myanmar}ー々〆]+"
)


@lru_cache(maxsize=1)
def _stemmer():  # type: ignore[no-untyped-def]
    import Stemmer

    return Stemmer.Stemmer("english")


@lru_cache(maxsize=65536)
def _stem(word: str) -> str:
    return str(_stemmer().stemWord(word))


def tokenize(text: str) -> list[str]:
    """Lowercase word tokens without stopwords, Snowball-stemmed; possessives dropped.

    Runs of CJK (and other unspaced scripts) become character bigrams.
    """
    tokens: list[str] = []
    for match in _TOKEN.finditer(text.lower()):
        word = match.group()
        if _UNSPACED.search(word):
            tokens.extend(_segment(word))
            continue
        if "'" in word or "’" in word:
            word = regex.split(r"['’]", word, maxsplit=1)[0]
        if not word or word in STOPWORDS:
            continue
        tokens.append(_stem(word))
    return tokens


def _segment(word: str) -> list[str]:
    """A word that holds unspaced script: its other parts as words, each
    unspaced run as bigrams (a unigram when the run is one character)."""
    out: list[str] = []
    last = 0
    for run in _UNSPACED.finditer(word):
        out.extend(_words(word[last : run.start()]))
        chars = run.group()
        if len(chars) == 1:
            out.append(chars)
        else:
            out.extend(chars[i : i + 2] for i in range(len(chars) - 1))
        last = run.end()
    out.extend(_words(word[last:]))
    return out


def _words(part: str) -> list[str]:
    return [_stem(part)] if part and part not in STOPWORDS else []


class LexicalIndex:
    """An in-memory inverted index with per-term posting arrays.

    Documents are addressed by row number (the same rows as the dense index).
    Appends are batched; a removed row is masked out by the caller's ``alive``
    mask rather than rewritten.
    """

    def __init__(self, k1: float = 1.5, b: float = 0.75) -> None:
        self.k1 = k1
        self.b = b
        self._postings: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        self._doc_len = np.zeros(0, dtype=np.float32)

    @property
    def size(self) -> int:
        return int(self._doc_len.shape[0])

    def add(self, token_lists: Sequence[Sequence[str]]) -> None:
        """Append documents (rows ``size .. size+len-1``) given as token lists."""
        start = self.size
        grouped: dict[str, tuple[list[int], list[int]]] = {}
        for offset, tokens in enumerate(token_lists):
            row = start + offset
            for term, tf in Counter(tokens).items():
                rows, tfs = grouped.setdefault(term, ([], []))
                rows.append(row)
                tfs.append(tf)
        for term, (rows, tfs) in grouped.items():
            new_rows = np.asarray(rows, dtype=np.int32)
            new_tfs = np.asarray(tfs, dtype=np.float32)
            if term in self._postings:
                old_rows, old_tfs = self._postings[term]
                new_rows = np.concatenate([old_rows, new_rows])
                new_tfs = np.concatenate([old_tfs, new_tfs])
            self._postings[term] = (new_rows, new_tfs)
        lengths = np.asarray([len(t) for t in token_lists], dtype=np.float32)
        self._doc_len = np.concatenate([self._doc_len, lengths])

    def scores(self, query_tokens: Iterable[str], mask: np.ndarray) -> np.ndarray:
        """BM25 score of every row for the query; rows outside ``mask`` score 0.

        ``mask`` is a boolean array over all rows: the documents in scope.
        """
        out = np.zeros(self.size, dtype=np.float32)
        n_docs = int(mask.sum())
        if n_docs == 0:
            return out
        doc_len = self._doc_len
        avgdl = float(doc_len[mask].mean()) or 1.0
        norm = self.k1 * (1.0 - self.b + self.b * doc_len / avgdl)
        for term, count in Counter(query_tokens).items():
            posting = self._postings.get(term)
            if posting is None:
                continue
            rows, tfs = posting
            keep = mask[rows]
            rows, tfs = rows[keep], tfs[keep]
            df = rows.shape[0]
            if df == 0:
                continue
            idf = math.log(1.0 + (n_docs - df + 0.5) / (df + 0.5))
            out[rows] += count * idf * tfs / (tfs + norm[rows])
        return out
