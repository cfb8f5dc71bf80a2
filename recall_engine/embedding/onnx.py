"""The packaged all-MiniLM-L6-v2 on ONNX Runtime: torch's vectors, a fraction of its latency.

The ONNX graph (the transformer, up to its last hidden state) is exported from
the packaged weights with torch once per machine and cached under
``<cache dir>/<hash of the source files>/model.onnx`` (written to a temporary
name and renamed, so no process ever reads half a file). After that, embedding
needs neither torch nor sentence-transformers (except a large ingest's bulk calls
where the CPU's bfloat16 products are faster, which run in bfloat16:
``embedding.bulk``): the model's own
``tokenizer.json`` tokenises (truncated at ``max_seq_length``), and mean pooling
over the attention mask plus L2 normalisation follow the model's
sentence-transformers modules.

Threads: one session with ``threads`` intra-op threads (default: the cores the
process may use) and spinning off, so waiting threads yield the core instead of
burning it while another process (or another batch) needs it. Queries and
ingest batches run concurrently on that one session, with no lock: a query is
never queued behind a whole bulk batch. A second, one-thread session for
queries measured no better on 2 cores next to in-process bulk batches (query
p50 8-14 ms either way under load) and cost ~100 MB, so there is one.

Run ``python -m recall_engine.embedding.onnx`` to export ahead of time.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import threading
import uuid
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from recall_engine.core.errors import EmbeddingError
from recall_engine.embedding import bulk as bulk_module
from recall_engine.embedding.bulk import BulkTransformer, Precision, bulk_wanted
from recall_engine.embedding.common import (
    PACKAGED_MODEL_ID,
    QUERY_CACHE,
    default_threads,
    packaged_model_dir,
    pooled_part,
)

if TYPE_CHECKING:
    from onnxruntime import InferenceSession
    from tokenizers import Encoding, Tokenizer

log = logging.getLogger(__name__)

EXPORT_FORMAT = "1"
"""Bumped when the exported graph changes shape, so old caches are not reused."""

SOURCE_FILES = (
    "model.safetensors",
    "config.json",
    "tokenizer.json",
    "sentence_bert_config.json",
    "modules.json",
    "1_Pooling/config.json",
)
"""The files the export and the embedding read; their bytes key the cache."""

CACHE_ENV = "RECALL_ENGINE_EMBEDDING_CACHE_DIR"
INPUTS = ("input_ids", "attention_mask", "token_type_ids")
_SHARED: dict[tuple[str, str, int, int], tuple[InferenceSession, Tokenizer]] = {}
"""Loaded sessions and tokenizers by (model file, model dir, threads, max length)."""
_SHARED_LOCK = threading.Lock()


def default_cache_dir() -> Path:
    """``$RECALL_ENGINE_EMBEDDING_CACHE_DIR``, else ``$XDG_CACHE_HOME/recall-engine/onnx``,
    else ``~/.cache/recall-engine/onnx``."""
    explicit = os.environ.get(CACHE_ENV, "").strip()
    if explicit:
        return Path(explicit).expanduser()
    base = os.environ.get("XDG_CACHE_HOME", "").strip() or str(Path.home() / ".cache")
    return Path(base).expanduser() / "recall-engine" / "onnx"


def source_hash(model_dir: Path) -> str:
    """A SHA-256 over the export format and the bytes of ``SOURCE_FILES``.

    Raises:
        EmbeddingError: a source file is missing.
    """
    digest = hashlib.sha256(f"recall-engine-onnx:{EXPORT_FORMAT}".encode())
    for name in SOURCE_FILES:
        path = model_dir / name
        try:
            with path.open("rb") as handle:
                file_digest = hashlib.file_digest(handle, "sha256").hexdigest()
        except OSError as exc:
            raise EmbeddingError(f"Model file {path} is unreadable: {exc}") from exc
        digest.update(f"{name}:{file_digest}\n".encode())
    return digest.hexdigest()[:24]


def export_onnx(model_dir: Path, target: Path) -> None:
    """Export the transformer of ``model_dir`` to ``target`` with torch (offline).

    Writes ``target`` through a temporary file in the same directory and a
    rename, so a concurrent reader sees the whole file or none.

    Raises:
        EmbeddingError: torch/transformers are missing or the export failed.
    """
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(f".{target.name}.{os.getpid()}.{uuid.uuid4().hex}.tmp")
    try:
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        import torch
        from transformers import AutoModel
        from transformers.utils import logging as hf_logging

        hf_logging.disable_progress_bar()

        class Transformer(torch.nn.Module):
            def __init__(self, model: Any) -> None:
                super().__init__()
                self.model = model

            def forward(
                self, input_ids: object, attention_mask: object, token_type_ids: object
            ) -> object:
                out = self.model(
                    input_ids=input_ids,
                    attention_mask=attention_mask,
                    token_type_ids=token_type_ids,
                )
                return out.last_hidden_state

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the tracer's and the legacy exporter's notes
            # Eager attention traces to plain ops; the padded example keeps the mask live.
            model = AutoModel.from_pretrained(str(model_dir), attn_implementation="eager")
            model.eval()
            ids = torch.ones((2, 8), dtype=torch.int64)
            mask = ids.clone()
            mask[1, 5:] = 0
            axes = {"batch": 0, "tokens": 1}
            dynamic = {name: {v: k for k, v in axes.items()} for name in INPUTS}
            dynamic["last_hidden_state"] = {0: "batch", 1: "tokens"}
            with torch.no_grad():
                torch.onnx.export(
                    Transformer(model),
                    (ids, mask, torch.zeros_like(ids)),
                    str(tmp),
                    input_names=list(INPUTS),
                    output_names=["last_hidden_state"],
                    dynamic_axes=dynamic,
                    opset_version=17,
                    dynamo=False,
                )
        os.replace(tmp, target)
    except Exception as exc:
        raise EmbeddingError(
            f"Could not export {model_dir} to ONNX: {exc}. Set "
            "RECALL_ENGINE_EMBEDDING_BACKEND=torch to embed without ONNX Runtime."
        ) from exc
    finally:
        tmp.unlink(missing_ok=True)


def ensure_exported(model_dir: Path, cache_dir: Path | None = None) -> Path:
    """The cached ONNX file for ``model_dir``, exported first when missing or
    when the source files changed (their hash names the cache folder).

    Raises:
        EmbeddingError: the export failed.
    """
    folder = (cache_dir or default_cache_dir()) / source_hash(model_dir)
    target = folder / "model.onnx"
    if not target.is_file():
        log.info("Exporting %s to ONNX at %s (once per machine; a few seconds)", model_dir, target)
        export_onnx(model_dir, target)
    return target


@dataclass(frozen=True)
class ModelSpec:
    """What the sentence-transformers config says about tokenising and pooling."""

    max_seq_length: int
    dimension: int
    pooling: str

    @classmethod
    def read(cls, model_dir: Path) -> ModelSpec:
        """Raises: EmbeddingError: unreadable config or a pooling mode not supported."""
        try:
            bert = json.loads((model_dir / "sentence_bert_config.json").read_text())
            pool = json.loads((model_dir / "1_Pooling" / "config.json").read_text())
        except (OSError, ValueError) as exc:
            raise EmbeddingError(f"Unreadable model config in {model_dir}: {exc}") from exc
        modes = [k for k, v in pool.items() if k.startswith("pooling_mode_") and v]
        if modes not in (["pooling_mode_mean_tokens"], ["pooling_mode_cls_token"]):
            raise EmbeddingError(f"Pooling {modes} of {model_dir} is not supported by ONNX")
        return cls(
            max_seq_length=int(bert["max_seq_length"]),
            dimension=int(pool["word_embedding_dimension"]),
            pooling="mean" if modes == ["pooling_mode_mean_tokens"] else "cls",
        )


class OnnxEmbedder:
    """The packaged all-MiniLM-L6-v2 on ONNX Runtime (same ``model_id`` as torch's).

    Args:
        threads: intra-op threads; None = the cores this process may use.
        cache_dir: where exported graphs live; None = ``default_cache_dir()``.
        model_dir: the sentence-transformers model folder (tests); None = packaged.
        precision: the bulk calls' arithmetic (``embedding.bulk``): "auto" runs calls
            of many texts in bfloat16 where the CPU's bfloat16 products measure
            faster, "bf16" wherever torch runs, "fp32" never.
    """

    def __init__(
        self,
        *,
        threads: int | None = None,
        cache_dir: Path | None = None,
        model_dir: Path | None = None,
        precision: Precision = "auto",
    ) -> None:
        self.threads = threads or default_threads()
        self._cache_dir = cache_dir
        self._model_dir = model_dir
        self.precision: Precision = precision
        self._bulk: BulkTransformer | None = None
        self._bulk_tokens = 0  # word pieces of the bulk calls so far (``LOAD_TOKENS``)
        self._spec: ModelSpec | None = None
        self._session: InferenceSession | None = None
        self._tokenizer: Tokenizer | None = None
        self._lock = threading.Lock()

    @property
    def model_id(self) -> str:
        return PACKAGED_MODEL_ID

    @property
    def model_dir(self) -> Path:
        return self._model_dir or packaged_model_dir()

    @property
    def dimension(self) -> int:
        return self._read_spec().dimension

    def _read_spec(self) -> ModelSpec:
        if self._spec is None:
            self._spec = ModelSpec.read(self.model_dir)
        return self._spec

    def warm_up(self) -> None:
        """Export (when not cached) and load the sessions now rather than on first use.

        Raises:
            EmbeddingError: the export or the session load failed.
        """
        self._loaded()

    def _loaded(self) -> tuple[InferenceSession, Tokenizer]:
        with self._lock:
            if self._session is None or self._tokenizer is None:  # loaded together
                self._session, self._tokenizer = self._load(self.threads)
            return self._session, self._tokenizer

    def _load(self, threads: int) -> tuple[InferenceSession, Tokenizer]:
        """The process's session and tokenizer of this model at ``threads`` threads,
        loaded on first use: every embedder of one model shares them (a session runs
        calls from many threads at once), so each engine of a process does not load
        its own copy of the weights."""
        spec = self._read_spec()
        path = ensure_exported(self.model_dir, self._cache_dir)
        key = (str(path), str(self.model_dir), threads, spec.max_seq_length)
        with _SHARED_LOCK:
            if key not in _SHARED:
                _SHARED[key] = self._open(path, spec, threads)
            return _SHARED[key]

    def _open(
        self, path: Path, spec: ModelSpec, threads: int
    ) -> tuple[InferenceSession, Tokenizer]:
        try:
            import onnxruntime as ort
            from tokenizers import Tokenizer

            options = ort.SessionOptions()
            options.intra_op_num_threads = threads
            options.inter_op_num_threads = 1
            options.add_session_config_entry("session.intra_op.allow_spinning", "0")
            options.add_session_config_entry("session.inter_op.allow_spinning", "0")
            options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
            options.log_severity_level = 3
            session = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
            tokenizer = Tokenizer.from_file(str(self.model_dir / "tokenizer.json"))
            tokenizer.enable_truncation(max_length=spec.max_seq_length)
            tokenizer.no_padding()
        except Exception as exc:
            raise EmbeddingError(f"Could not load the ONNX model {path}: {exc}") from exc
        log.info("ONNX session ready: %s, %d intra-op threads", path, threads)
        return session, tokenizer

    def embed(self, texts: Sequence[str], *, batch_size: int = 64) -> np.ndarray:
        """Vectors of ``texts``, shape (len(texts), dimension), rows of unit length.

        Texts are embedded longest first, in batches of at most ``batch_size`` whose
        texts are all more than half as long as the batch's longest (``_batches``):
        a batch is padded to its longest text, so one ingest's chunk, its sentences
        and its entity names in one batch would each cost the chunk's length. A call
        of many texts may run in bfloat16 (``precision``, ``embedding.bulk``).

        Raises:
            EmbeddingError: the model failed to load or run.
        """
        spec = self._read_spec()
        out = np.zeros((len(texts), spec.dimension), dtype=np.float32)
        if len(texts) == 0:
            return out
        session, tokenizer = self._loaded()
        bulk = None
        try:
            encodings = tokenizer.encode_batch(list(texts))
            lengths = [len(e.ids) for e in encodings]
            bulk = self._bulk_transformer(len(texts), sum(lengths))
            for rows in _batches(lengths, max(1, batch_size)):
                batch = [encodings[i] for i in rows]
                if bulk is None:
                    out[rows] = self._run(session, batch, spec)
                else:
                    feeds = _feeds(batch)
                    out[rows] = _pooled(bulk.hidden(feeds), feeds["attention_mask"], spec)
        except EmbeddingError:
            raise
        except Exception as exc:
            runtime = "ONNX Runtime" if bulk is None else "torch (bfloat16)"
            raise EmbeddingError(f"Embedding with {runtime} failed: {exc}") from exc
        return out

    def embed_query(self, text: str) -> np.ndarray:
        """One query's vector, 1-D and read-only, from the per-process cache.

        Raises:
            EmbeddingError: the model failed to load or run.
        """
        return QUERY_CACHE.get_or_compute(
            self.model_id, text, lambda: self.embed([text], batch_size=1)[0]
        )

    def embed_with_parts(
        self, text: str, spans: Sequence[tuple[int, int]]
    ) -> tuple[np.ndarray, np.ndarray | None]:
        """``text``'s vector and its part's, from one forward pass of ``text``.

        The part's vector is the mean of the last hidden states of the tokens that
        overlap one of ``spans`` (special tokens left out), of unit length: the part
        as the model read it within the whole text, at no second model call.

        Args:
            text: the text (a query).
            spans: character ranges of ``text`` (start, end) that make the part.

        Returns:
            (the text's vector, exactly ``embed([text])[0]``; the part's vector, or
            None when no token falls in ``spans`` or the model pools its first token).

        Raises:
            EmbeddingError: the model failed to load or run.
        """
        return self.embed_many_with_parts([(text, spans)])[0]

    def embed_many_with_parts(
        self, items: Sequence[tuple[str, Sequence[tuple[int, int]]]]
    ) -> list[tuple[np.ndarray, np.ndarray | None]]:
        """``embed_with_parts`` for several texts, in one forward pass of them all
        (padded to the longest; each text's vector as ``embed`` gives it in a batch).

        Args:
            items: (text, its part's character ranges) pairs.

        Returns:
            One (text's vector, part's vector or None) pair per item, in order.

        Raises:
            EmbeddingError: the model failed to load or run.
        """
        if not items:
            return []
        spec = self._read_spec()
        session, tokenizer = self._loaded()
        try:
            encodings = tokenizer.encode_batch([text for text, _ in items])
            hidden, mask = self._hidden(session, encodings)
        except Exception as exc:
            raise EmbeddingError(f"Embedding with ONNX Runtime failed: {exc}") from exc
        wholes = _pooled(hidden, mask, spec)
        if spec.pooling == "cls":
            return [(whole, None) for whole in wholes]
        return [
            (
                wholes[row],
                pooled_part(
                    hidden[row, : len(enc.ids)], enc.offsets, enc.special_tokens_mask, spans
                ),
            )
            for row, (enc, (_, spans)) in enumerate(zip(encodings, items, strict=True))
        ]

    @property
    def bulk_ready(self) -> bool:
        """Whether calls of many texts run in bfloat16 now (``embedding.bulk``): the
        model is loaded (bulk calls of ``LOAD_TOKENS`` word pieces, or ``load_bulk``,
        did it)."""
        return self._bulk is not None and self._bulk.ready

    def load_bulk(self) -> bool:
        """Load the bfloat16 transformer now (blocking) where ``precision`` would run
        a bulk call in it; whether bulk calls now run in bfloat16."""
        bulk = self._bulk_of(bulk_module.BULK_TEXTS)
        return bulk is not None and bulk.load()

    def _bulk_transformer(self, texts: int, tokens: int) -> BulkTransformer | None:
        """The bfloat16 transformer for a call of ``texts`` texts and ``tokens`` word
        pieces when it is loaded, else None (fp32). It is loaded first when this
        bulk call brings the process's bulk calls to ``LOAD_TOKENS`` word pieces."""
        bulk = self._bulk_of(texts)
        if bulk is None or bulk.ready:
            return bulk
        with self._lock:
            self._bulk_tokens += tokens
            due = self._bulk_tokens >= bulk_module.LOAD_TOKENS
        return bulk if due and bulk.load() else None

    def _bulk_of(self, texts: int) -> BulkTransformer | None:
        if not bulk_wanted(self.precision, texts):
            return None
        with self._lock:
            if self._bulk is None:
                measure = self.precision == "auto"
                self._bulk = BulkTransformer(self.model_dir, self.threads, measure=measure)
            return self._bulk

    @staticmethod
    def _hidden(
        session: InferenceSession, encodings: Sequence[Encoding]
    ) -> tuple[np.ndarray, np.ndarray]:
        """The last hidden states of ``encodings`` (padded to the longest) and their
        attention mask."""
        feeds = _feeds(encodings)
        return session.run(None, feeds)[0], feeds["attention_mask"]

    @classmethod
    def _run(
        cls, session: InferenceSession, encodings: Sequence[Encoding], spec: ModelSpec
    ) -> np.ndarray:
        return _pooled(*cls._hidden(session, encodings), spec)


def _feeds(encodings: Sequence[Encoding]) -> dict[str, np.ndarray]:
    """The model's inputs for ``encodings``, padded to the longest."""
    width = max(len(e.ids) for e in encodings)
    feeds = {name: np.zeros((len(encodings), width), dtype=np.int64) for name in INPUTS}
    for row, enc in enumerate(encodings):
        n = len(enc.ids)
        feeds["input_ids"][row, :n] = enc.ids
        feeds["attention_mask"][row, :n] = enc.attention_mask
        feeds["token_type_ids"][row, :n] = enc.type_ids
    return feeds


def _pooled(hidden: np.ndarray, attention: np.ndarray, spec: ModelSpec) -> np.ndarray:
    """One unit vector per row of ``hidden``: its first token's state or the mean of
    its unpadded tokens' states (``spec.pooling``)."""
    if spec.pooling == "cls":
        pooled = hidden[:, 0, :]
    else:
        mask = attention[..., None].astype(np.float32)
        pooled = (hidden * mask).sum(axis=1) / np.clip(mask.sum(axis=1), 1e-9, None)
    # Always normalised, as the torch path (normalize_embeddings=True) and the model's
    # Normalize module do.
    norms = np.linalg.norm(pooled, axis=1, keepdims=True)
    pooled = pooled / np.clip(norms, 1e-12, None)
    return pooled.astype(np.float32)


def _batches(lengths: Sequence[int], batch_size: int) -> list[list[int]]:
    """Indexes of ``lengths`` longest first (ties in order), cut into batches of at
    most ``batch_size`` in which every length is more than half the first's."""
    order = sorted(range(len(lengths)), key=lambda i: -lengths[i])
    batches: list[list[int]] = []
    for i in order:
        batch = batches[-1] if batches else None
        if batch is None or len(batch) >= batch_size or 2 * lengths[i] <= lengths[batch[0]]:
            batches.append([i])
        else:
            batch.append(i)
    return batches


def main() -> None:
    """Export the packaged model now (``make install`` runs this)."""
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    path = ensure_exported(packaged_model_dir())
    print(path)


if __name__ == "__main__":
    main()
