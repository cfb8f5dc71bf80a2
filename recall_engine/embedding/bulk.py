"""Bulk batches in bfloat16, on CPUs whose bfloat16 matrix products are faster.

An ingest embeds thousands of texts in one call: chunks, their sentences, entity
names. Where the CPU multiplies bfloat16 matrices in hardware (Intel's AMX, the
``amx_bf16`` flag; AVX-512 BF16, ``avx512_bf16``, on AMD's Zen 4 and later; Arm's
``bf16``), torch can run the transformer's matrix products in bfloat16 faster than
the fp32 products of ONNX Runtime. ``BulkTransformer`` runs the packaged model that
way and hands back its last hidden states as float32, which the ONNX embedder pools
exactly as it pools its own: each vector stays within cosine 0.9995 of the fp32 one
(tests), so stored vectors and fp32 query vectors still meet. Queries and small
calls stay on ONNX Runtime in fp32: one short text is faster there than through
torch, and a process that only answers questions never imports torch. Loading torch
and the model takes seconds, so it is loaded only once the embedding it speeds up
repays that: at a bulk call of ``LOAD_TOKENS`` word pieces or more (a large
document's window), or at the bulk call that brings the process's bulk calls to
``LOAD_TOKENS`` in all (the third conversation of a process that ingests them one by
one; a process that ingests one conversation never loads it). Until then every call
runs in fp32.

A flag says what the CPU can do, not how fast: the same flag runs several times
faster than fp32 on one machine and no faster on another. So before loading the
model, ``"auto"`` times the model's widest product in both arithmetics
(``bf16_gain``) and keeps fp32 unless bfloat16 is at least ``PROBE_GAIN`` times
faster.

The choice is ``RecallConfig.embedding_precision``: ``"auto"`` (bf16 for calls of
at least ``BULK_TEXTS`` texts where the CPU lists a bfloat16 flag and its products
measure ``PROBE_GAIN`` times faster), ``"bf16"`` (the same calls on any CPU,
unmeasured; slower than fp32 where bfloat16 is emulated) or ``"fp32"`` (never).
When torch cannot load the model, the batches fall back to fp32 with one warning.
Measured: ``docs/decisions.md``.
"""

from __future__ import annotations

import functools
import logging
import os
import threading
import time
from pathlib import Path
from typing import Any, Literal

import numpy as np

log = logging.getLogger(__name__)

Precision = Literal["auto", "fp32", "bf16"]

BULK_TEXTS = 32
"""The fewest texts in one ``embed`` call that run in bfloat16 once the model is
loaded (a smaller call, a query or one remembered message, stays in fp32)."""

LOAD_TOKENS = 100_000
"""Word pieces of bulk calls (one call's, or the process's so far with it) at which
the bfloat16 model is loaded: about what the model's load (~3 s) costs in fp32
embedding, so a process pays at most that before bfloat16 starts to repay it. A 1 MB
document's first window holds about twice as many; one conversation's ingest about a
third."""

CPUINFO = Path("/proc/cpuinfo")


BF16_FLAGS = frozenset({"amx_bf16", "avx512_bf16", "bf16"})
"""CPU flags of bfloat16 matrix products in hardware: x86's ``flags`` (Intel's AMX,
AVX-512 BF16) and Arm's ``Features`` (``bf16``)."""

PROBE_GAIN = 2.0
"""How many times faster than fp32 this CPU's bfloat16 product must run (``bf16_gain``)
for ``"auto"`` to load the bfloat16 model. An ingest gains less than its products do
(tokenising, attention's softmax and the pooling stay as they were; see
``docs/decisions.md``), so a smaller gain would not repay loading torch."""

PROBE_SHAPE = (512, 384, 1536)
"""(tokens, width, feed-forward width): the model's widest product, on a batch's tokens."""

PROBE_REPEATS = 5
"""Timed runs of each arithmetic in ``bf16_gain``; the fastest of each counts."""


@functools.cache
def cpu_lists_bf16(cpuinfo: Path = CPUINFO) -> bool:
    """Whether this CPU lists a bfloat16 flag (``BF16_FLAGS``; Linux only, False
    wherever ``cpuinfo`` cannot be read)."""
    try:
        with cpuinfo.open(encoding="utf-8", errors="replace") as lines:
            for line in lines:
                flags = line.startswith(("flags", "Features"))
                if flags and BF16_FLAGS.intersection(line.split(":", 1)[-1].split()):
                    return True
    except OSError:
        return False
    return False


def bulk_wanted(precision: Precision, texts: int) -> bool:
    """Whether a call of ``texts`` texts may run in bfloat16 under ``precision``
    (under ``"auto"``, once ``bf16_gain`` measured it faster)."""
    if precision == "fp32" or texts < BULK_TEXTS:
        return False
    return precision == "bf16" or cpu_lists_bf16()


def bf16_gain(torch: Any, repeats: int = PROBE_REPEATS) -> float:
    """How many times faster this CPU runs ``PROBE_SHAPE``'s product in bfloat16 than
    in fp32, on torch's current threads: the fastest of ``repeats`` timed runs of
    each (after one untimed run), fp32's over bfloat16's. Takes tens of milliseconds.

    Args:
        torch: the imported torch module.
        repeats: timed runs of each arithmetic.

    Returns:
        The ratio; above 1 where bfloat16 is faster.
    """
    tokens, width, wide = PROBE_SHAPE
    fastest = {}
    for dtype in (torch.float32, torch.bfloat16):
        states = torch.rand(tokens, width).to(dtype)
        weight = torch.rand(wide, width).to(dtype)
        with torch.inference_mode():
            torch.nn.functional.linear(states, weight)
            times = []
            for _ in range(repeats):
                started = time.perf_counter()
                torch.nn.functional.linear(states, weight)
                times.append(time.perf_counter() - started)
        fastest[dtype] = min(times)
    return fastest[torch.float32] / max(fastest[torch.bfloat16], 1e-9)


class BulkTransformer:
    """The packaged transformer on torch in bfloat16, loaded by ``load``.

    Args:
        model_dir: the sentence-transformers model folder (its ``model.safetensors``).
        threads: torch's intra-op threads (process-wide, as for the torch backend).
        measure: time the CPU's bfloat16 products first (``bf16_gain``) and load
            nothing more when they are under ``PROBE_GAIN`` times faster than fp32
            (``"auto"``); False loads the model unmeasured (``"bf16"``).
    """

    def __init__(self, model_dir: Path, threads: int, *, measure: bool = False) -> None:
        self.model_dir = model_dir
        self.threads = threads
        self.measure = measure
        self.gain: float | None = None
        """``bf16_gain`` as measured before loading (None: not measured)."""
        self._model: Any = None
        self._failed = False
        self._lock = threading.Lock()

    @property
    def ready(self) -> bool:
        """Whether the model is loaded (never waits for a load in progress)."""
        return self._model is not None

    def load(self) -> bool:
        """Load the model now unless it is (waiting for a load in progress); whether
        it is ready (False when loading failed or the measured gain was too small:
        the caller stays in fp32, and no load is tried again)."""
        return self._loaded() is not None

    def hidden(self, feeds: dict[str, np.ndarray]) -> np.ndarray:
        """The last hidden states of ``feeds`` (input_ids, attention_mask,
        token_type_ids; int64 arrays of one shape), as float32.

        Raises:
            RuntimeError: the model is not loaded (check ``ready`` first).
        """
        model = self._model
        if model is None:
            raise RuntimeError("the bfloat16 transformer is not loaded (see ``ready``)")
        import torch

        with torch.inference_mode():
            states = model(**{name: torch.from_numpy(a) for name, a in feeds.items()})
            return states.last_hidden_state.float().numpy()

    def _loaded(self) -> Any:
        with self._lock:
            if self._model is None and not self._failed:
                try:
                    self._model = self._load()
                except Exception as exc:  # torch missing or broken: fp32 still works
                    log.warning("bfloat16 embedding unavailable, staying in fp32: %s", exc)
                self._failed = self._model is None
            return self._model

    def _load(self) -> Any:
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        import torch

        torch.set_num_threads(self.threads)
        if self.measure:
            self.gain = bf16_gain(torch)
            if self.gain < PROBE_GAIN:
                log.info(
                    "bfloat16 products only %.2fx as fast as fp32 on this CPU "
                    "(under %.1fx): bulk calls stay in fp32",
                    self.gain,
                    PROBE_GAIN,
                )
                return None
        from transformers import AutoModel
        from transformers.utils import logging as hf_logging

        hf_logging.disable_progress_bar()
        model = AutoModel.from_pretrained(str(self.model_dir)).to(torch.bfloat16)
        log.info(
            "bfloat16 transformer ready for bulk batches: %s (products %s)",
            self.model_dir,
            "unmeasured" if self.gain is None else f"{self.gain:.2f}x as fast as fp32",
        )
        return model.eval()
