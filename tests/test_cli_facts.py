"""``recall-engine facts``: a subject's facts, current and superseded, with dates."""

import json

import pytest

from recall_engine import RecallEngine, cli
from recall_engine.testing import DeterministicEmbedder


@pytest.fixture
def fast_engine(monkeypatch):
    original = RecallEngine.__init__

    def init(self, data_dir=None, **kwargs):
        original(self, data_dir, embedder=DeterministicEmbedder(), **kwargs)

    monkeypatch.setattr(RecallEngine, "__init__", init)


def test_facts_lists_current_and_superseded(tmp_path, capsys, fast_engine):
    data = str(tmp_path / "data")
    for text in ("Ann lives in Lyon.", "Ann moved to Paris."):  # stated at ingest time, in order
        assert cli.main(["--data-dir", data, "remember", text, "--dataset", "notes"]) == 0
    capsys.readouterr()
    assert cli.main(["--data-dir", data, "facts", "Ann", "--dataset", "notes"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert any(
        line.startswith("x Ann lives_in Lyon") and "moved_to Paris" in line for line in lines
    )
    assert any(line.startswith("  Ann moved_to Paris") for line in lines)
    assert cli.main(["--data-dir", data, "facts", "Ann", "--current", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [(r["predicate"], r["object"], r["current"]) for r in rows] == [
        ("moved_to", "Paris", True)
    ]
    assert cli.main(["--data-dir", data, "facts", "Ann", "--as-of", "not a time"]) == 2
    assert "as_of" in capsys.readouterr().err
