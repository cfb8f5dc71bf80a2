"""The int8 graph that embeds sentence vectors stays close to the fp32 one."""

from __future__ import annotations

import numpy as np

TEXTS = [
    "Ann said: I moved to Lyon last spring.",
    "Ulm: The city lies on the Danube and has the tallest church steeple in the world.",
    "Bo said: Thanks!",
    "Ada Lovelace wrote the first published algorithm for Babbage's Analytical Engine, "
    "which she described in her notes of 1843.",
]


def test_fast_vectors_are_unit_length_and_close_to_the_full_models(onnx_minilm):
    fast = onnx_minilm.embed_fast(TEXTS)
    full = onnx_minilm.embed(TEXTS)
    assert fast.shape == full.shape and fast.dtype == np.float32
    assert np.allclose(np.linalg.norm(fast, axis=1), 1.0, atol=1e-5)
    cosine = (fast * full).sum(axis=1)
    assert cosine.min() > 0.97
    assert not np.allclose(fast, full, atol=1e-4)  # it is another graph, not the same one
    # each text is still nearest its own full-precision vector
    assert (np.argmax(fast @ full.T, axis=1) == np.arange(len(TEXTS))).all()
