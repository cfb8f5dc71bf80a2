import json

import pytest

from recall_engine import Conversation, Document, Message
from recall_engine.core.errors import InvalidInputError, UnsupportedFileTypeError
from recall_engine.core.validation import check_name
from recall_engine.ingest.sources import collect_items


def test_plain_string_is_one_text_item():
    (item,) = collect_items("Einstein was born in Ulm.")
    assert item.kind == "text" and item.text == "Einstein was born in Ulm."


def test_document_and_conversation_keep_their_metadata():
    doc = Document(text="Body", title="T", metadata={"team": "a"}, source_id="s1")
    conv = Conversation(messages=[Message(id="1", speaker="A", text="hi")], metadata={"x": 1})
    d, c = collect_items([doc, conv], metadata={"project": "p"})
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
    items = collect_items(tmp_path)
    assert [i.name for i in items] == ["a.txt", "b.md", "gamma", "d.jsonl"]
    assert items[3].kind == "conversation" and len(items[3].messages or []) == 3
    assert all(i.source_id and i.metadata["source_path"] for i in items)
    assert [i.name for i in collect_items(str(tmp_path / "a.txt"))] == ["a.txt"]


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
    (item,) = collect_items(path)
    assert item.messages is not None and item.messages[0].timestamp is not None


@pytest.mark.parametrize("text", ["", "   \n\t"])
def test_empty_text_is_refused(text):
    with pytest.raises(InvalidInputError, match="empty"):
        collect_items(Document(text=text))


def test_unsupported_file_type(tmp_path):
    path = tmp_path / "slides.pdf"
    path.write_bytes(b"%PDF")
    with pytest.raises(UnsupportedFileTypeError, match=r"\.pdf"):
        collect_items(path)


def test_missing_file(tmp_path):
    with pytest.raises(InvalidInputError, match="does not exist"):
        collect_items(str(tmp_path / "nope.txt"))


def test_unreadable_file(tmp_path, monkeypatch):
    path = tmp_path / "locked.txt"
    path.write_text("x")

    def denied(*args, **kwargs):  # root ignores chmod, so fail the open itself
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr("recall_engine.ingest.sources.os.open", denied)
    with pytest.raises(InvalidInputError, match="cannot be read: Permission denied"):
        collect_items(path)


def test_non_utf8_file_is_unreadable(tmp_path):
    path = tmp_path / "latin.txt"
    path.write_bytes("caf\xe9".encode("latin-1"))
    with pytest.raises(InvalidInputError, match="not UTF-8"):
        collect_items(path)


def test_malformed_json(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text("{not json")
    with pytest.raises(InvalidInputError, match="not valid JSON"):
        collect_items(path)


def test_non_string_message_text_in_json(tmp_path):
    path = tmp_path / "chat.json"
    path.write_text(json.dumps({"messages": [{"id": "1", "speaker": "A", "text": 42}]}))
    with pytest.raises(InvalidInputError, match="text"):
        collect_items(path)


def test_non_string_message_text_in_python():
    with pytest.raises(ValueError, match="string"):
        Message(id="1", text=42)  # type: ignore[arg-type]


def test_message_without_id_among_messages_with_ids():
    conv = Conversation(messages=[Message(id="a", text="one"), Message(text="two")])
    with pytest.raises(InvalidInputError, match="no id"):
        collect_items(conv)


def test_duplicate_message_ids():
    conv = Conversation(messages=[Message(id="a", text="one"), Message(id="a", text="two")])
    with pytest.raises(InvalidInputError, match="more than once"):
        collect_items(conv)


def test_messages_without_any_ids_get_positional_ids():
    (item,) = collect_items(Conversation(messages=[Message(text="one"), Message(text="two")]))
    assert [m.id for m in item.messages or []] == ["m0", "m1"]


def test_reserved_metadata_key_is_refused():
    with pytest.raises(InvalidInputError, match="reserved"):
        collect_items("text", metadata={"chunk_id": "x"})


def test_unsupported_python_object():
    with pytest.raises(InvalidInputError, match="cannot store a int"):
        collect_items(42)


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
        collect_items(path)
