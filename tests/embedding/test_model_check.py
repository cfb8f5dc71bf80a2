"""A torch model that cannot load offline is refused before torch is imported
(issue 16, finding 9: a nonexistent model once ended in a oneMKL abort)."""

import subprocess
import sys
import textwrap

import pytest

from recall_engine.core.errors import ConfigError
from recall_engine.embedding import check_model_reachable

FRESH = textwrap.dedent(
    """
    import sys
    from recall_engine import RecallEngine
    from recall_engine.core.errors import ConfigError
    for model in ("no-such-model-xyz", "nobody/no-such-model", sys.argv[2]):
        try:
            RecallEngine(sys.argv[1], embedding_model=model).close()
        except ConfigError as exc:
            print("refused", model in str(exc))
        else:
            print("accepted")
    print("imported", "torch" in sys.modules, "sentence_transformers" in sys.modules)
    """
)


def test_a_nonexistent_model_is_refused_in_a_fresh_process_without_torch(tmp_path):
    out = subprocess.run(
        [sys.executable, "-c", FRESH, str(tmp_path / "data"), str(tmp_path / "missing-folder")],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == ["refused True"] * 3 + ["imported False False"]
    assert not (tmp_path / "data").exists()  # refused before the data dir was touched


def test_a_folder_without_a_model_is_refused(tmp_path):
    with pytest.raises(ConfigError, match=r"no modules\.json or config\.json"):
        check_model_reachable(str(tmp_path))


def test_a_saved_model_folder_is_accepted(tmp_path):
    (tmp_path / "config.json").write_text("{}")
    check_model_reachable(str(tmp_path))


def test_a_cached_hub_model_is_accepted_offline(tmp_path, monkeypatch):
    repo = tmp_path / "models--sentence-transformers--tiny-model"
    (repo / "refs").mkdir(parents=True)
    (repo / "refs" / "main").write_text("0" * 40)
    snapshot = repo / "snapshots" / ("0" * 40)
    snapshot.mkdir(parents=True)
    (snapshot / "modules.json").write_text("[]")
    monkeypatch.setenv("SENTENCE_TRANSFORMERS_HOME", str(tmp_path))
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    check_model_reachable("tiny-model")  # a bare name means sentence-transformers/<name>
    check_model_reachable("sentence-transformers/tiny-model")
    with pytest.raises(ConfigError, match="Hugging Face cache"):
        check_model_reachable("other-model")


def test_explicitly_allowed_downloads_leave_the_hub_to_decide(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "0")
    check_model_reachable("some-org/some-model")
