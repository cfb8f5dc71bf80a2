"""The one fusion component: named join modes, alpha weights, lane normalisation."""

import numpy as np
import pytest

from recall_engine.core.errors import InvalidInputError
from recall_engine.core.hits import ChunkHit
from recall_engine.read.fusion import alpha_weights, join, normalise


def _hit(chunk_id, score):
    return ChunkHit(
        score=score, chunk_id=chunk_id, data_id="d", chunk_index=0, text="", document_name="n"
    )


def test_weighted_keeps_distances_and_reciprocal_rank_keeps_order():
    dense = [_hit("a", 0.9), _hit("b", 0.89), _hit("c", 0.1)]
    lexical = [_hit("c", 12.0), _hit("b", 1.0)]
    weighted = join([dense, lexical], [1.0, 1.0], "weighted")
    assert weighted["a"] == 1.0 and weighted["c"] == 1.0
    assert weighted["b"] == pytest.approx(0.9875)
    ranked = join([dense, lexical[::-1]], [1.0, 1.0], "reciprocal_rank", rrf_k=60)
    assert ranked["b"] == pytest.approx(1 / 62 + 1 / 61)
    assert ranked["a"] == pytest.approx(1 / 61)
    assert max(ranked, key=ranked.__getitem__) == "b"


def test_weights_scale_each_list():
    dense = [_hit("a", 0.9), _hit("b", 0.1)]
    lexical = [_hit("b", 5.0), _hit("a", 1.0)]
    dense_w, lexical_w = alpha_weights(0.8)
    scores = join([dense, lexical], [dense_w, lexical_w])
    assert scores["a"] == pytest.approx(0.8) and scores["b"] == pytest.approx(0.2)


def test_lanes_are_normalised_their_own_way():
    assert normalise(np.array([2.0, 4.0, 3.0])).tolist() == [0.0, 1.0, 0.5]
    assert normalise(np.array([2.0, 4.0]), "by_best").tolist() == [0.5, 1.0]
    assert normalise(np.array([0.0, 0.0]), "by_best").tolist() == [0.0, 0.0]
    assert normalise(np.array([3.0, 3.0])).tolist() == [1.0, 1.0]


@pytest.mark.parametrize("alpha", [-0.1, 1.5])
def test_alpha_outside_zero_one_is_refused(alpha):
    with pytest.raises(InvalidInputError, match="alpha"):
        alpha_weights(alpha)


def test_unknown_mode_and_negative_weights_are_refused():
    with pytest.raises(InvalidInputError, match="join mode"):
        join([[_hit("a", 1.0)]], [1.0], "concatenate")  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError, match="negative"):
        join([[_hit("a", 1.0)]], [-1.0])
