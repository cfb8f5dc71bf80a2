"""The exported ONNX graph is cached by a hash of the source files and written atomically."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from recall_engine.core.errors import EmbeddingError
from recall_engine.embedding import onnx as embedding_onnx
from recall_engine.embedding import packaged_model_dir
from recall_engine.embedding.onnx import SOURCE_FILES, ensure_exported, source_hash


@pytest.fixture
def model_copy(tmp_path) -> Path:
    """The packaged model's source files, weights linked, configs copied (editable)."""
    source, target = packaged_model_dir(), tmp_path / "model"
    for name in SOURCE_FILES:
        (target / name).parent.mkdir(parents=True, exist_ok=True)
        if name.endswith(".safetensors"):
            (target / name).symlink_to(source / name)
        else:
            shutil.copy(source / name, target / name)
    return target


@pytest.fixture
def fake_export(monkeypatch):
    """Record exports instead of running torch; write a stand-in file."""
    calls: list[Path] = []

    def export(model_dir: Path, target: Path) -> None:
        calls.append(target)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(b"onnx")

    monkeypatch.setattr(embedding_onnx, "export_onnx", export)
    return calls


def test_export_is_reused_then_redone_when_sources_change(tmp_path, model_copy, fake_export):
    cache = tmp_path / "cache"
    first = ensure_exported(model_copy, cache)
    assert ensure_exported(model_copy, cache) == first and len(fake_export) == 1
    config = model_copy / "sentence_bert_config.json"
    config.write_text(config.read_text().replace("256", "128"))
    second = ensure_exported(model_copy, cache)
    assert second != first and len(fake_export) == 2
    assert second.parent.name == source_hash(model_copy)


def test_leftover_temporary_file_is_not_a_model(tmp_path, model_copy, fake_export):
    cache = tmp_path / "cache"
    folder = cache / source_hash(model_copy)
    folder.mkdir(parents=True)
    (folder / ".model.onnx.123.abc.tmp").write_bytes(b"half")
    ensure_exported(model_copy, cache)
    assert len(fake_export) == 1


def test_missing_source_file_is_an_embedding_error(model_copy):
    (model_copy / "tokenizer.json").unlink()
    with pytest.raises(EmbeddingError, match=r"tokenizer\.json"):
        source_hash(model_copy)


def test_cache_dir_from_environment(monkeypatch, tmp_path):
    monkeypatch.setenv("RECALL_ENGINE_EMBEDDING_CACHE_DIR", str(tmp_path / "c"))
    assert embedding_onnx.default_cache_dir() == tmp_path / "c"
    monkeypatch.delenv("RECALL_ENGINE_EMBEDDING_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert embedding_onnx.default_cache_dir() == tmp_path / "xdg" / "recall-engine" / "onnx"


def test_onnx_embeds_without_loading_torch(onnx_minilm):
    """With the export cached, a fresh process embeds on ONNX Runtime alone."""
    code = (
        "import sys\n"
        "import recall_engine\n"
        "assert 'onnxruntime' not in sys.modules and 'torch' not in sys.modules\n"
        "from recall_engine.embedding.onnx import OnnxEmbedder\n"
        "e = OnnxEmbedder()\n"
        "print(e.embed(['hello world']).shape, sorted(m for m in ('torch', 'transformers',"
        " 'sentence_transformers') if m in sys.modules))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "(1, 384) []"
