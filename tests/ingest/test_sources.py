import json
import logging
from pathlib import Path

import pytest

from recall_engine import Conversation, Document, Message
from recall_engine.core.errors import InvalidInputError, UnsupportedFileTypeError
from recall_engine.core.validation import check_name
from recall_engine.ingest.sources import collect_sources


def test_plain_string_is_one_text_item():
    (item,) = collect_sources("Einstein was born in Ulm.").items
    assert item.kind == "text" and item.text == "Einstein was born in Ulm."


def test_document_and_conversation_keep_their_metadata():
    doc = Document(text="Body", title="T", metadata={"team": "a"}, source_id="s1")
    conv = Conversation(messages=[Message(id="1", speaker="A", text="hi")], metadata={"x": 1})
    d, c = collect_sources([doc, conv], metadata={"project": "p"}).items
    assert (d.name, d.source_id, d.metadata) == ("T", "s1", {"project": "p", "team": "a"})
    assert c.kind == "conversation" and c.metadata == {"project": "p", "x": 1}


def test_files_and_folders(tmp_path):
    (tmp_path / "a.txt").write_text("Alpha text.")
    (tmp_path / "b.md").write_text("# B\nBeta text.")
    (tmp_path / "c.json").write_text(json.dumps({"text": "Gamma", "title": "gamma"}))
    (tmp_path / "d.jsonl").write_text(
        "\n".join(json.dumps({"id": f"m{i}", "speaker": "S", "text": f"t{i}"}) for i in range(3))
    )
    (tmp_path / ".hidden.txt").write_text("secret")
    (tmp_path / "skip.bin").write_bytes(b"\x00")
    items = collect_sources(tmp_path).items
    assert [i.name for i in items] == ["a.txt", "b.md", "gamma", "d.jsonl"]
    assert items[3].kind == "conversation" and len(items[3].messages or []) == 3
    assert all(i.source_id and i.metadata["source_path"] for i in items)
    assert [i.name for i in collect_sources(str(tmp_path / "a.txt")).items] == ["a.txt"]


def test_a_folder_walk_names_the_files_it_does_not_read(tmp_path, caplog):
    (tmp_path / "a.txt").write_text("Alpha text.")
    (tmp_path / "report.pdf").write_bytes(b"%PDF")
    (tmp_path / "LICENSE").write_text("MIT")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "table.csv").write_text("a,b")
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "notes.txt").write_text("hidden on purpose")
    with caplog.at_level(logging.INFO, logger="recall_engine.ingest.sources"):
        found = collect_sources(tmp_path)
    assert [i.name for i in found.items] == ["a.txt"]
    assert [(u.path.relative_to(tmp_path).as_posix(), u.reason) for u in found.unread] == [
        ("LICENSE", "no file extension"),
        ("report.pdf", "unsupported type '.pdf'"),
        ("sub/table.csv", "unsupported type '.csv'"),
    ]
    assert found.hidden == 1
    (warning,) = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert "3 file(s)" in warning and "report.pdf (unsupported type '.pdf')" in warning
    assert any("1 hidden" in r.getMessage() for r in caplog.records)


def test_a_folder_with_nothing_to_read_says_what_it_left_out(tmp_path):
    (tmp_path / "slides.pdf").write_bytes(b"%PDF")
    (tmp_path / ".draft.txt").write_text("hidden")
    with pytest.raises(
        InvalidInputError, match=r"slides\.pdf \(unsupported type '\.pdf'\); 1 hidden"
    ):
        collect_sources(tmp_path)


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-be", "utf-32"])
def test_a_file_with_a_byte_order_mark_is_read_in_its_encoding(tmp_path, encoding):
    path = tmp_path / "windows.txt"
    text = "Notes saved by Notepad: café."
    data = text.encode(encoding)
    path.write_bytes(data if encoding != "utf-16-be" else b"\xfe\xff" + data)
    (item,) = collect_sources(path).items
    assert item.text == text


def test_a_tilde_in_a_path_object_is_the_home_folder(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))
    (tmp_path / "note.txt").write_text("In the home folder.")
    (item,) = collect_sources(Path("~/note.txt")).items
    assert item.text == "In the home folder."


@pytest.mark.parametrize(
    ("content", "match"),
    [
        ("", r"empty\.json is empty"),
        ("[]", r"empty\.json holds no documents"),
        ('{"text": "  "}', r"empty\.json: Cannot remember empty text"),
        ('[{"text": "a"}, {"title": "b"}]', r"empty\.json\[1\]: expected an object"),
        ('{"messages": [{"id": "1", "text": ""}]}', r"empty\.json: Message 1 has empty text"),
    ],
)
def test_a_json_file_with_nothing_to_store_is_named(tmp_path, content, match):
    path = tmp_path / "empty.json"
    path.write_text(content)
    with pytest.raises(InvalidInputError, match=match):
        collect_sources(tmp_path)


def test_a_bad_document_in_a_jsonl_file_is_named_by_its_line(tmp_path):
    path = tmp_path / "docs.jsonl"
    path.write_text('{"text": "fine"}\n\n{"text": "", "title": "blank"}\n')
    with pytest.raises(InvalidInputError, match=r"docs\.jsonl, line 3: Cannot remember empty"):
        collect_sources(path)


def test_conversation_json_with_messages(tmp_path):
    path = tmp_path / "chat.json"
    path.write_text(
        json.dumps(
            {
                "messages": [
                    {"id": "x", "speaker": "A", "text": "hello", "timestamp": "2023-05-08T13:56:00"}
                ]
            }
        )
    )
    (item,) = collect_sources(path).items
    assert item.messages is not None and item.messages[0].timestamp is not None


@pytest.mark.parametrize("text", ["", "   \n\t"])
def test_empty_text_is_refused(text):
    with pytest.raises(InvalidInputError, match="empty"):
        collect_sources(Document(text=text))


def test_unsupported_file_type(tmp_path):
    path = tmp_path / "slides.pdf"
    path.write_bytes(b"%PDF")
    with pytest.raises(UnsupportedFileTypeError, match=r"\.pdf"):
        collect_sources(path)


def test_missing_file(tmp_path):
    with pytest.raises(InvalidInputError, match="does not exist"):
        collect_sources(str(tmp_path / "nope.txt"))


def test_unreadable_file(tmp_path, monkeypatch):
    path = tmp_path / "locked.txt"
    path.write_text("x")

    def denied(*args, **kwargs):  # root ignores chmod, so fail the open itself
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr("recall_engine.ingest.sources.os.open", denied)
    with pytest.raises(InvalidInputError, match="cannot be read: Permission denied"):
        collect_sources(path)


def test_non_utf8_file_is_unreadable(tmp_path):
    path = tmp_path / "latin.txt"
    path.write_bytes("caf\xe9".encode("latin-1"))
    with pytest.raises(InvalidInputError, match="not UTF-8"):
        collect_sources(path)


def test_malformed_json(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text("{not json")
    with pytest.raises(InvalidInputError, match="not valid JSON"):
        collect_sources(path)


def test_non_string_message_text_in_json(tmp_path):
    path = tmp_path / "chat.json"
    path.write_text(json.dumps({"messages": [{"id": "1", "speaker": "A", "text": 42}]}))
    with pytest.raises(InvalidInputError, match="text"):
        collect_sources(path)


def test_non_string_message_text_in_python():
    with pytest.raises(ValueError, match="string"):
        Message(id="1", text=42)  # type: ignore[arg-type]


def test_message_without_id_among_messages_with_ids():
    conv = Conversation(messages=[Message(id="a", text="one"), Message(text="two")])
    with pytest.raises(InvalidInputError, match="no id"):
        collect_sources(conv)


def test_duplicate_message_ids():
    conv = Conversation(messages=[Message(id="a", text="one"), Message(id="a", text="two")])
    with pytest.raises(InvalidInputError, match="more than once"):
        collect_sources(conv)


def test_messages_without_any_ids_get_positional_ids():
    (item,) = collect_sources(
        Conversation(messages=[Message(text="one"), Message(text="two")])
    ).items
    assert [m.id for m in item.messages or []] == ["m0", "m1"]


def test_reserved_metadata_key_is_refused():
    with pytest.raises(InvalidInputError, match="reserved"):
        collect_sources("text", metadata={"chunk_id": "x"})


def test_unsupported_python_object():
    with pytest.raises(InvalidInputError, match="cannot store a int"):
        collect_sources(42)


@pytest.mark.parametrize(
    "name", ["../etc", "a/b", "a\\b", "", " ", "x" * 200, "-dash-first", "name\n", " chat-ann "]
)
def test_bad_names(name):
    with pytest.raises(InvalidInputError):
        check_name(name, what="dataset_name")


def test_good_names():
    assert check_name("chat ann", what="dataset_name") == "chat ann"
    assert check_name("conv-26", what="dataset_name") == "conv-26"


def test_file_with_nul_bytes_is_refused_naming_the_file(tmp_path):
    path = tmp_path / "dump.txt"
    path.write_bytes(b"readable start\x00\x01\x02 binary tail")
    with pytest.raises(InvalidInputError, match=r"File .*dump\.txt holds a NUL character"):
        collect_sources(path)
