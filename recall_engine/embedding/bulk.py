"""Bulk batches in bfloat16, on CPUs with matrix units for it.

An ingest embeds thousands of texts in one call: chunks, their sentences, entity
names. On a CPU with AMX (the ``amx_bf16`` flag: Intel Xeon from Sapphire Rapids on),
torch runs the transformer's matrix products in bfloat16 on those units, faster than
the fp32 products of ONNX Runtime. ``BulkTransformer`` runs the packaged model that
way and hands back its last hidden states as float32, which the ONNX embedder pools
exactly as it pools its own: each vector stays within cosine 0.9995 of the fp32 one
(tests), so stored vectors and fp32 query vectors still meet. Queries and small
calls stay on ONNX Runtime in fp32: one short text is faster there than through
torch, and a process that only answers questions never imports torch. Loading torch
and the model takes seconds, so it is loaded at the first call of ``LOAD_TEXTS``
texts or more (a large ingest, whose embedding then repays it); until then, and for
a process that only ever makes smaller calls, every call runs in fp32.

The choice is ``RecallConfig.embedding_precision``: ``"auto"`` (bf16 for calls of
at least ``BULK_TEXTS`` texts where the CPU has AMX-BF16), ``"bf16"`` (the same
calls on any CPU; slower than fp32 where bfloat16 is emulated) or ``"fp32"``
(never). When torch cannot load the model, the batches fall back to fp32 with one
warning. Measured: ``docs/decisions.md``.
"""

from __future__ import annotations

import functools
import logging
import os
import threading
from pathlib import Path
from typing import Any, Literal

import numpy as np

log = logging.getLogger(__name__)

Precision = Literal["auto", "fp32", "bf16"]

BULK_TEXTS = 32
"""The fewest texts in one ``embed`` call that run in bfloat16 once the model is
loaded (a smaller call, a query or one remembered message, stays in fp32)."""

LOAD_TEXTS = 1024
"""The fewest texts in one ``embed`` call that load the bfloat16 model: one full
window of an ingest (``ingest.embed_batches``)."""

CPUINFO = Path("/proc/cpuinfo")


@functools.cache
def cpu_has_amx_bf16(cpuinfo: Path = CPUINFO) -> bool:
    """Whether this CPU has AMX bfloat16 units (its ``amx_bf16`` flag; Linux only,
    False wherever ``cpuinfo`` cannot be read)."""
    try:
        with cpuinfo.open(encoding="utf-8", errors="replace") as lines:
            for line in lines:
                if line.startswith("flags"):
                    return "amx_bf16" in line.split(":", 1)[-1].split()
    except OSError:
        return False
    return False


def bulk_wanted(precision: Precision, texts: int) -> bool:
    """Whether a call of ``texts`` texts runs in bfloat16 under ``precision``."""
    if precision == "fp32" or texts < BULK_TEXTS:
        return False
    return precision == "bf16" or cpu_has_amx_bf16()


class BulkTransformer:
    """The packaged transformer on torch in bfloat16, loaded by ``load``.

    Args:
        model_dir: the sentence-transformers model folder (its ``model.safetensors``).
        threads: torch's intra-op threads (process-wide, as for the torch backend).
    """

    def __init__(self, model_dir: Path, threads: int) -> None:
        self.model_dir = model_dir
        self.threads = threads
        self._model: Any = None
        self._failed = False
        self._lock = threading.Lock()

    @property
    def ready(self) -> bool:
        """Whether the model is loaded (never waits for a load in progress)."""
        return self._model is not None

    def load(self) -> bool:
        """Load the model now unless it is (waiting for a load in progress); whether
        it is ready (False when loading failed: the caller stays in fp32)."""
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
                    self._failed = True
                    log.warning("bfloat16 embedding unavailable, staying in fp32: %s", exc)
            return self._model

    def _load(self) -> Any:
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        import torch
        from transformers import AutoModel
        from transformers.utils import logging as hf_logging

        hf_logging.disable_progress_bar()
        torch.set_num_threads(self.threads)
        model = AutoModel.from_pretrained(str(self.model_dir)).to(torch.bfloat16)
        log.info("bfloat16 transformer ready for bulk batches: %s", self.model_dir)
        return model.eval()
