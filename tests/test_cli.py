import pytest

from recall_engine import RecallEngine, cli
from recall_engine.testing import DeterministicEmbedder


@pytest.fixture
def fast_engine(monkeypatch):
    original = RecallEngine.__init__

    def init(self, data_dir=None, **kwargs):
        original(self, data_dir, embedder=DeterministicEmbedder(), **kwargs)

    monkeypatch.setattr(RecallEngine, "__init__", init)


def test_remember_recall_and_list(tmp_path, capsys, fast_engine):
    note = tmp_path / "note.md"
    note.write_text("The launch moved to Thursday because of the storm.")
    data = str(tmp_path / "data")
    assert cli.main(["--data-dir", data, "remember", str(note), "--dataset", "notes"]) == 0
    assert "1 new" in capsys.readouterr().out
    assert cli.main(["--data-dir", data, "recall", "launch storm", "--type", "CHUNKS_LEXICAL"]) == 0
    out = capsys.readouterr().out
    assert "[note.md] The launch moved to Thursday" in out
    assert cli.main(["--data-dir", data, "datasets"]) == 0
    assert capsys.readouterr().out.startswith("notes\t")


def test_errors_are_reported_with_a_status(tmp_path, capsys, fast_engine):
    data = str(tmp_path / "data")
    assert cli.main(["--data-dir", data, "recall", "anything"]) == 1
    assert "remember() first" in capsys.readouterr().err
    assert cli.main(["--data-dir", data, "remember", "  ", "--dataset", "x"]) == 2
    assert "empty" in capsys.readouterr().err
