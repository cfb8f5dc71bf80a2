"""Bulk embedding calls in bfloat16 (``embedding.bulk``): which calls, how close to
fp32, and the fall back to fp32 when torch cannot load the model."""

from __future__ import annotations

import logging

import numpy as np
import pytest

from recall_engine import RecallEngine, SearchType
from recall_engine.config import RecallConfig
from recall_engine.core.errors import EmbeddingError, InvalidInputError
from recall_engine.embedding import bulk as bulk_module
from recall_engine.embedding import make_embedder
from recall_engine.embedding.bulk import (
    BULK_TEXTS,
    PROBE_GAIN,
    BulkTransformer,
    bf16_gain,
    bulk_wanted,
    cpu_lists_bf16,
)
from recall_engine.embedding.onnx import OnnxEmbedder

TOPICS = [
    "pottery class on Saturday mornings",
    "a camping trip by the lake with the kids",
    "the violin lessons she started in spring",
    "a marathon training plan with long runs",
    "a recipe for coconut milk ice cream",
    "the horse painting finished last week",
    "volunteering at the homeless shelter downtown",
    "a new job at a tech company's hardware team",
]
SPEAKERS = ("Ann", "Bob", "Cleo", "Dev", "Eve")
TEXTS = [f"{speaker} talked about {topic}." for speaker in SPEAKERS for topic in TOPICS]


@pytest.fixture(scope="module")
def fp32() -> OnnxEmbedder:
    embedder = OnnxEmbedder(precision="fp32")
    embedder.warm_up()
    return embedder


@pytest.fixture(scope="module")
def bf16() -> OnnxEmbedder:
    embedder = OnnxEmbedder(precision="bf16")
    embedder.warm_up()
    assert embedder.load_bulk()
    return embedder


def test_which_calls_run_in_bf16(monkeypatch) -> None:
    assert not bulk_wanted("fp32", 10_000)
    assert not bulk_wanted("bf16", BULK_TEXTS - 1)  # a query, one message: fp32
    assert bulk_wanted("bf16", BULK_TEXTS)
    monkeypatch.setattr(bulk_module, "cpu_lists_bf16", lambda: False)
    assert not bulk_wanted("auto", 10_000)
    monkeypatch.setattr(bulk_module, "cpu_lists_bf16", lambda: True)
    assert bulk_wanted("auto", BULK_TEXTS)
    assert not bulk_wanted("auto", BULK_TEXTS - 1)


def test_the_cpu_flags_are_read_from_cpuinfo(tmp_path) -> None:
    def cpuinfo(name: str, text: str):
        path = tmp_path / name
        path.write_text(text)
        return path

    assert cpu_lists_bf16(cpuinfo("amx", "processor\t: 0\nflags\t\t: fpu sse2 amx_bf16 amx_tile\n"))
    assert cpu_lists_bf16(cpuinfo("zen4", "processor\t: 0\nflags\t\t: fpu avx512f avx512_bf16\n"))
    assert cpu_lists_bf16(cpuinfo("arm", "processor\t: 0\nFeatures\t: fp asimd sve bf16 i8mm\n"))
    assert not cpu_lists_bf16(cpuinfo("plain", "processor\t: 0\nflags\t\t: fpu avx2 avx512f\n"))
    # a flag's name inside another line is not the flag
    assert not cpu_lists_bf16(
        cpuinfo("named", "model name\t: bf16 avx512_bf16 box\nflags\t: fpu\n")
    )
    assert not cpu_lists_bf16(tmp_path / "missing")


def test_auto_measures_before_loading_and_stays_fp32_when_bf16_is_not_faster(
    fp32, monkeypatch, caplog
) -> None:
    import transformers

    gains = []
    monkeypatch.setattr(bulk_module, "cpu_lists_bf16", lambda: True)
    monkeypatch.setattr(bulk_module, "bf16_gain", lambda torch: gains.append(1) or 1.1)
    loads = []
    monkeypatch.setattr(transformers.AutoModel, "from_pretrained", lambda *a, **k: loads.append(a))
    embedder = OnnxEmbedder(precision="auto")
    with caplog.at_level(logging.INFO, logger="recall_engine.embedding.bulk"):
        assert not embedder.load_bulk()
        assert not embedder.load_bulk()  # measured once, not again
        vectors = embedder.embed(TEXTS)  # a bulk call
    assert gains == [1] and loads == []  # the model was never loaded
    assert embedder._bulk is not None and embedder._bulk.gain == 1.1
    assert not embedder.bulk_ready
    np.testing.assert_array_equal(vectors, fp32.embed(TEXTS))
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert any("stay in fp32" in r.getMessage() for r in caplog.records)


def test_auto_loads_the_model_when_bf16_measures_faster(monkeypatch) -> None:
    import transformers

    class Loaded:
        def to(self, dtype):
            self.dtype = dtype
            return self

        def eval(self):
            return self

    monkeypatch.setattr(bulk_module, "bf16_gain", lambda torch: PROBE_GAIN + 0.5)
    monkeypatch.setattr(transformers.AutoModel, "from_pretrained", lambda *a, **k: Loaded())
    measured = BulkTransformer(OnnxEmbedder().model_dir, 2, measure=True)
    assert measured.load() and measured.ready and measured.gain == PROBE_GAIN + 0.5
    unmeasured = BulkTransformer(OnnxEmbedder().model_dir, 2)  # "bf16": loads unmeasured
    assert unmeasured.load() and unmeasured.gain is None


def test_the_gain_is_measured_on_this_cpu() -> None:
    import torch

    gain = bf16_gain(torch, repeats=2)
    assert np.isfinite(gain) and gain > 0


def test_bf16_vectors_are_within_cosine_0_9995_of_fp32(fp32, bf16) -> None:
    exact = fp32.embed(TEXTS)
    fast = bf16.embed(TEXTS)
    assert len(TEXTS) >= BULK_TEXTS
    assert bf16.bulk_ready
    np.testing.assert_allclose(np.linalg.norm(fast, axis=1), 1.0, atol=1e-5)
    cosines = (exact * fast).sum(axis=1)
    assert cosines.min() >= 0.9995
    assert not np.array_equal(exact, fast)  # it did run in another arithmetic
    # each text still finds itself first among the others
    assert (np.argmax(fast @ exact.T, axis=1) == np.arange(len(TEXTS))).all()


def test_a_small_call_stays_fp32_exactly(fp32) -> None:
    embedder = OnnxEmbedder(precision="bf16")
    few = TEXTS[:3]
    np.testing.assert_array_equal(embedder.embed(few), fp32.embed(few))
    assert embedder._bulk is None and not embedder.bulk_ready  # torch was never asked for


def test_the_model_loads_once_bulk_calls_reach_load_tokens(fp32, monkeypatch) -> None:
    loads = []
    monkeypatch.setattr(BulkTransformer, "load", lambda self: loads.append(self) or False)
    pieces = sum(len(e.ids) for e in fp32._loaded()[1].encode_batch(TEXTS))
    monkeypatch.setattr(bulk_module, "LOAD_TOKENS", int(pieces * 2.5))
    embedder = OnnxEmbedder(precision="bf16")
    first = embedder.embed(TEXTS)  # a bulk call, but not enough to load torch for
    embedder.embed(TEXTS[:3])  # a small call counts for nothing
    embedder.embed(TEXTS)
    assert loads == []
    np.testing.assert_array_equal(first, fp32.embed(TEXTS))
    embedder.embed(TEXTS)  # the process's bulk calls reach LOAD_TOKENS
    assert len(loads) == 1
    once = OnnxEmbedder(precision="bf16")
    once.embed(TEXTS * 3)  # one call as large loads at once
    assert len(loads) == 2


def test_a_failed_load_falls_back_to_fp32_with_one_warning(fp32, monkeypatch, caplog) -> None:
    def broken(self):
        raise ImportError("no torch here")

    monkeypatch.setattr(BulkTransformer, "_load", broken)
    embedder = OnnxEmbedder(precision="bf16")
    with caplog.at_level(logging.WARNING, logger="recall_engine.embedding.bulk"):
        assert not embedder.load_bulk()
        assert not embedder.load_bulk()  # not tried again
        first = embedder.embed(TEXTS)
    np.testing.assert_array_equal(first, fp32.embed(TEXTS))
    warnings = [r for r in caplog.records if "bfloat16" in r.getMessage()]
    assert len(warnings) == 1 and "no torch here" in warnings[0].getMessage()


def test_fp32_never_loads_the_bulk_model() -> None:
    embedder = OnnxEmbedder(precision="fp32")
    assert not embedder.load_bulk()
    assert embedder._bulk is None


def test_the_setting_reaches_the_embedder_and_is_checked(monkeypatch) -> None:
    assert make_embedder(RecallConfig()).precision == "auto"
    assert make_embedder(RecallConfig(embedding_precision="fp32")).precision == "fp32"
    monkeypatch.setenv("RECALL_ENGINE_EMBEDDING_PRECISION", "bf16")
    assert RecallConfig.load().embedding_precision == "bf16"
    monkeypatch.setenv("RECALL_ENGINE_EMBEDDING_PRECISION", "fp16")
    with pytest.raises(InvalidInputError, match="RECALL_ENGINE_EMBEDDING_PRECISION"):
        RecallConfig.load()


async def test_a_bf16_ingest_answers_fp32_queries(bf16, tmp_path) -> None:
    engine = RecallEngine(tmp_path, embedder=bf16)
    await engine.remember("\n\n".join(TEXTS), dataset_name="notes")
    results = await engine.recall(
        "Who plans long runs for a marathon?", SearchType.CHUNKS, top_k=1, only_context=True
    )
    assert results and "marathon training plan" in results[0].text
    engine.close()


def test_a_failing_bulk_run_is_an_embedding_error_naming_torch(bf16, monkeypatch) -> None:
    def broken(self, feeds):
        raise RuntimeError("out of memory")

    monkeypatch.setattr(BulkTransformer, "hidden", broken)
    with pytest.raises(EmbeddingError, match=r"torch \(bfloat16\) failed: out of memory"):
        bf16.embed(TEXTS)
