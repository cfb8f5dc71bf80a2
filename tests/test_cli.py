import io
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


def test_remember_recall_and_list(tmp_path, capsys, fast_engine):
    note = tmp_path / "note.md"
    note.write_text("The launch moved to Thursday because of the storm.")
    data = str(tmp_path / "data")
    assert cli.main(["--data-dir", data, "remember", str(note), "--dataset", "notes"]) == 0
    assert "1 new" in capsys.readouterr().out
    assert cli.main(["--data-dir", data, "recall", "launch storm", "--type", "CHUNKS_LEXICAL"]) == 0
    out = capsys.readouterr().out
    assert "[note.md] The launch moved to Thursday" in out
    for command in (["recall", "launch storm", "--json"], ["items", "--json"]):
        assert cli.main(["--data-dir", data, *command]) == 0
        assert "note.md" in json.dumps(json.loads(capsys.readouterr().out))  # valid JSON
    assert cli.main(["--data-dir", data, "datasets"]) == 0
    assert capsys.readouterr().out.startswith("notes\t")


def test_errors_are_reported_with_a_status(tmp_path, capsys, fast_engine):
    data = str(tmp_path / "data")
    assert cli.main(["--data-dir", data, "recall", "anything"]) == 1
    assert "remember() first" in capsys.readouterr().err
    assert cli.main(["--data-dir", data, "remember", "  ", "--dataset", "x"]) == 2
    assert "empty" in capsys.readouterr().err


def test_remember_dash_reads_the_text_on_stdin(tmp_path, capsys, fast_engine, monkeypatch):
    data = str(tmp_path / "data")
    piped = io.TextIOWrapper(io.BytesIO(b"notes.txt\nThe launch moved to Thursday."))
    monkeypatch.setattr("sys.stdin", piped)
    assert cli.main(["--data-dir", data, "remember", "-"]) == 0
    assert "1 new" in capsys.readouterr().out
    assert cli.main(["--data-dir", data, "items"]) == 0
    assert capsys.readouterr().out.rstrip().endswith("notes.txt The launch moved to Thursday.")
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(b"caf\xe9")))
    assert cli.main(["--data-dir", data, "remember", "-"]) == 2
    assert "stdin is not UTF-8" in capsys.readouterr().err
    # One stdin, read once: a second - is refused, not read as empty.
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(b"Ada wrote a program.")))
    assert cli.main(["--data-dir", data, "remember", "-", "-"]) == 2
    assert "- (the text on stdin) may be given once" in capsys.readouterr().err


def test_remember_of_a_folder_names_the_files_it_did_not_read(
    tmp_path, caplog, capsys, fast_engine
):
    # Outside pytest no handler is configured and Python prints a warning on stderr.
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "a.md").write_text("The launch moved to Thursday.")
    (tmp_path / "notes" / "plan.docx").write_bytes(b"PK")
    assert (
        cli.main(["--data-dir", str(tmp_path / "data"), "remember", str(tmp_path / "notes")]) == 0
    )
    assert "plan.docx (unsupported type '.docx')" in caplog.text
    assert "1 new" in (out := capsys.readouterr().out) and "1 file(s) not read" in out


def _options(parser):
    """(command, action) for every option of ``parser`` and its subcommands."""
    import argparse

    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from ((f"{name} {c}".strip(), a) for c, a in _options(sub))
        elif action.option_strings:
            yield "", action


def test_the_help_names_every_default_a_user_would_otherwise_guess():
    # docs/cli.md is this help; a default it leaves out (recall --top-k 5, not recall()'s
    # 15; remember --dataset main_dataset) is one a user cannot know. The server's flags
    # (serve's, and the limits mcp shares with it) are not this module's.
    server_flags = {"--rate-limit", "--burst"}
    missing = [
        f"recall-engine {command} {action.option_strings[-1]} (default {action.default!r})"
        for command, action in _options(cli._parser())
        if command != "serve" and not server_flags & set(action.option_strings)
        if action.default not in (None, False, [], "==SUPPRESS==")
        and str(action.default) not in (action.help or "")
    ]
    assert not missing, missing
