"""BM25 scores checked against bm25s (the Lucene variant) as an oracle."""

import bm25s
import numpy as np
import pytest

from recall_engine.storage.lexical import LexicalIndex, tokenize

CORPUS = [
    "Caroline went to the LGBTQ support group yesterday and found it powerful.",
    "Melanie is painting a sunrise over the lake with her kids.",
    "Caroline is researching adoption agencies because she wants to be a mother.",
    "The support group meets every Tuesday in the community center.",
    "Melanie ran a charity race for mental health last Saturday.",
    "Caroline moved from Sweden four years ago.",
    "Painting and pottery help Melanie relax after work.",
    "They talked about adoption, painting, and the support group again.",
]
QUERIES = [
    "When did Caroline go to the LGBTQ support group?",
    "What does Melanie paint?",
    "adoption agencies",
    "charity race mental health",
    "support group support group",
    "nothing matches zebra",
]


def test_tokenizer_lowercases_stems_and_drops_stopwords():
    assert tokenize("The Painters were PAINTING Caroline's paintings!") == [
        "painter",
        "paint",
        "carolin",
        "paint",
    ]


@pytest.mark.parametrize("query", QUERIES)
def test_scores_match_bm25s_lucene(query):
    tokens = [tokenize(doc) for doc in CORPUS]
    index = LexicalIndex(k1=1.5, b=0.75)
    index.add(tokens[:3])  # incremental appends must give the same scores as one build
    index.add(tokens[3:])
    ours = index.scores(tokenize(query), np.ones(len(CORPUS), dtype=bool))
    oracle = bm25s.BM25(k1=1.5, b=0.75, method="lucene")
    oracle.index(tokens, show_progress=False)
    q = [t for t in tokenize(query) if t in oracle.vocab_dict]
    expected = oracle.get_scores(q) if q else np.zeros(len(CORPUS))
    np.testing.assert_allclose(ours, expected, rtol=1e-5, atol=1e-6)


def test_scoped_scores_equal_a_separate_index_over_the_scope():
    tokens = [tokenize(doc) for doc in CORPUS]
    scope = np.array([i % 2 == 0 for i in range(len(CORPUS))])
    index = LexicalIndex()
    index.add(tokens)
    ours = index.scores(tokenize("support group painting"), scope)
    oracle = bm25s.BM25(method="lucene")
    oracle.index([t for t, keep in zip(tokens, scope, strict=True) if keep], show_progress=False)
    q = [t for t in tokenize("support group painting") if t in oracle.vocab_dict]
    np.testing.assert_allclose(ours[scope], oracle.get_scores(q), rtol=1e-5, atol=1e-6)
    assert not ours[~scope].any()


def test_cjk_text_is_indexed_as_bigrams_so_a_name_is_found_inside_a_clause():
    assert tokenize("乌尔姆") == ["乌尔", "尔姆"]
    docs = [tokenize("爱因斯坦出生于乌尔姆。"), tokenize("他后来搬到了慕尼黑。")]
    index = LexicalIndex()
    index.add(docs)
    scores = index.scores(tokenize("乌尔姆"), np.ones(2, dtype=bool))
    assert scores[0] > 0 and scores[1] == 0


def test_mixed_script_keeps_latin_words_whole():
    assert tokenize("iPhone15发布了") == ["iphone15", "发布", "布了"]
    assert tokenize("東") == ["東"]
