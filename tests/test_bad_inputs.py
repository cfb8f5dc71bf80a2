"""Every public entry point refuses bad input with a library error that names the
argument, and leaves the store as it was (issue 10). One table per entry point."""

import hashlib
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from recall_engine import Conversation, Document, Message, RecallEngine, SearchType, cli
from recall_engine.core.errors import (
    ConfigError,
    DatasetNotFoundError,
    InvalidFieldError,
    InvalidInputError,
    InvalidRuleError,
    RecallEngineError,
    StoreLockedError,
    UnknownArgumentError,
)
from recall_engine.core.inputs import MAX_METADATA_DEPTH
from recall_engine.testing import DeterministicEmbedder


def _nested(levels: int) -> dict:
    """A dict that nests ``levels`` dicts below itself (``levels + 1`` levels in all)."""
    value: dict = {"leaf": 1}
    for _ in range(levels):
        value = {"k": value}
    return value


def _snapshot(root) -> str:
    """A digest of every file under the data dir (names and bytes), holder file aside."""
    digest = hashlib.sha256()
    for path in sorted(p for p in root.rglob("*") if p.is_file() and "holder" not in p.name):
        digest.update(str(path.relative_to(root)).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


async def _physics(eng: RecallEngine) -> None:
    await eng.remember("Einstein was born in Ulm.", dataset_name="physics")


@pytest.fixture
async def filled(tmp_path, prebuilt):
    """A fresh copy per test of one remembered item (ingested once per session)."""
    eng = RecallEngine(prebuilt(_physics, tmp_path / "data"), embedder=DeterministicEmbedder())
    assert list(await eng.list_datasets()) == ["physics"]  # its stores open, as after remember
    yield eng
    eng.close()


def _fifo(tmp_path):
    path = tmp_path / "fifo.txt"
    os.mkfifo(path)
    return path


PYTHON_API = [
    # (call, error class, the argument the message must name)
    ("remember", lambda e, t: e.remember("bad \ud800"), InvalidInputError, "remember() text"),
    ("remember", lambda e, t: e.remember(_fifo(t)), InvalidInputError, "FIFO"),
    ("remember", lambda e, t: e.remember("notes.txt"), InvalidInputError, "Document(text="),
    (
        "remember",
        lambda e, t: e.remember("x", dataset_name="name\n"),
        InvalidInputError,
        "dataset_name",
    ),
    ("remember", lambda e, t: e.remember("x", tenant_id=""), InvalidInputError, "tenant_id"),
    (
        "remember",
        lambda e, t: e.remember("x", metadata={"k": {1}}),
        InvalidInputError,
        "metadata['k']",
    ),
    (
        "remember",
        lambda e, t: e.remember("x", metadata=_nested(MAX_METADATA_DEPTH)),
        InvalidInputError,
        f"more than {MAX_METADATA_DEPTH} levels deep",
    ),
    (
        "remember",
        lambda e, t: e.remember("x", metadata={"tags": [_nested(MAX_METADATA_DEPTH - 2)]}),
        InvalidInputError,
        "metadata['tags'][0]",
    ),
    (
        "remember",
        lambda e, t: e.remember(Document(text="x", title="\udfff")),
        InvalidInputError,
        "Document.title",
    ),
    (
        "remember",
        lambda e, t: e.remember("x", show_progress="yes"),
        InvalidInputError,
        "show_progress",
    ),
    ("recall", lambda e, t: e.recall("q", datasets=123), InvalidInputError, "datasets"),
    ("recall", lambda e, t: e.recall("q", datasets="physics\n"), InvalidInputError, "datasets"),
    ("recall", lambda e, t: e.recall("q", dataset_ids=123), InvalidInputError, "dataset_ids"),
    ("recall", lambda e, t: e.recall("q", session_id=123), InvalidInputError, "session_id"),
    ("recall", lambda e, t: e.recall("q", system_prompt=123), InvalidInputError, "system_prompt"),
    (
        "recall",
        lambda e, t: e.recall("q", system_prompt="\ud800"),
        InvalidInputError,
        "system_prompt",
    ),
    (
        "recall",
        lambda e, t: e.recall("q", system_prompt_path=t),
        InvalidInputError,
        "system_prompt_path",
    ),
    (
        "recall",
        lambda e, t: e.recall("q", system_prompt_path=t / "missing.txt"),
        InvalidInputError,
        "system_prompt_path",
    ),
    (
        "recall",
        lambda e, t: e.recall("q", system_prompt_path=123),
        InvalidInputError,
        "system_prompt_path",
    ),
    ("forget", lambda e, t: e.forget(data_id=123), InvalidInputError, "data_id"),
    ("forget", lambda e, t: e.forget(data_id=[]), InvalidInputError, "data_id"),
    ("forget", lambda e, t: e.forget(data_id=["nope"]), InvalidInputError, "data_id"),
    ("forget", lambda e, t: e.forget(dataset_name="nope"), DatasetNotFoundError, "nope"),
    ("forget", lambda e, t: e.forget(), InvalidInputError, "data_id"),
    ("visualize_graph", lambda e, t: e.visualize_graph(""), InvalidInputError, "path"),
    ("visualize_graph", lambda e, t: e.visualize_graph(None), InvalidInputError, "path"),
    ("visualize_graph", lambda e, t: e.visualize_graph(t), InvalidInputError, "folder"),
    (
        "visualize_graph",
        lambda e, t: e.visualize_graph(t / "g.html", ""),
        InvalidInputError,
        "dataset_name",
    ),
    (
        "visualize_graph",
        lambda e, t: e.visualize_graph(t / "g.html", "nope"),
        DatasetNotFoundError,
        "nope",
    ),
    (
        "list_datasets",
        lambda e, t: e.list_datasets(tenant_id="../x"),
        InvalidInputError,
        "tenant_id",
    ),
    ("list_items", lambda e, t: e.list_items(dataset_name="nope"), DatasetNotFoundError, "nope"),
    # issue 16, finding 8
    ("remember", lambda e, t: e.remember("\x00"), InvalidInputError, "NUL"),
    ("remember", lambda e, t: e.remember("text\x00more"), InvalidInputError, "remember() text"),
    ("remember", lambda e, t: e.remember(Document(text="a\x00")), InvalidInputError, "NUL"),
    ("remember", lambda e, t: e.remember("/"), InvalidInputError, "system folder"),
    ("remember", lambda e, t: e.remember(Path("/proc")), InvalidInputError, "system folder"),
    ("remember", lambda e, t: e.remember("/proc/self/status"), InvalidInputError, "/proc"),
    ("remember", lambda e, t: e.remember(_deep_json(t, ".json")), InvalidInputError, "deep"),
    ("remember", lambda e, t: e.remember(_deep_json(t, ".jsonl")), InvalidInputError, "deep"),
    ("remember", lambda e, t: e.remember(_bad_timestamp_file(t)), InvalidFieldError, "timestamp"),
    ("recall", lambda e, t: e.recall("Ulm", session_id="s\ud800"), InvalidInputError, "session_id"),
    ("recall", lambda e, t: e.recall("Ulm \ud800", SearchType.CHUNKS), InvalidInputError, "query"),
    (
        "recall",
        lambda e, t: e.recall("Ulm \ud800", SearchType.CHUNKS_LEXICAL),
        InvalidInputError,
        "query_text",
    ),
    ("recall", lambda e, t: e.recall("Ulm\x00", SearchType.CHUNKS), InvalidInputError, "NUL"),
    (
        "recall",
        lambda e, t: e.recall("Ulm", SearchType.GRAPH_COMPLETION, node_name="x", only_context=True),
        InvalidInputError,
        "node_name",
    ),
    (
        "create_user",
        lambda e, t: e.create_user("bob", exist_ok="yes"),
        InvalidInputError,
        "exist_ok",
    ),
]


def _deep_json(tmp_path, suffix: str) -> Path:
    path = tmp_path / f"deep{suffix}"
    path.write_text("[" * 5000 + "]" * 5000)
    return path


def _bad_timestamp_file(tmp_path) -> Path:
    path = tmp_path / "chat.json"
    path.write_text('{"messages": [{"id": "m1", "text": "hi", "timestamp": "2023-02-30"}]}')
    return path


@pytest.mark.parametrize(
    ("name", "call", "error", "named"),
    PYTHON_API,
    ids=[f"{r[0]}-{i}" for i, r in enumerate(PYTHON_API)],
)
async def test_python_api_refuses_bad_input(filled, tmp_path, name, call, error, named):
    before = _snapshot(filled.config.data_dir)
    with pytest.raises(error) as info:
        await call(filled, tmp_path)
    assert named in str(info.value)
    assert _snapshot(filled.config.data_dir) == before
    assert list(await filled.list_datasets()) == ["physics"]


# Public input models: a bad field is an InvalidFieldError (an InvalidInputError, a
# ValueError) naming model and field, never pydantic's ValidationError.
MODELS = [
    (lambda: Message(text="x", timestamp="2023-02-30"), "Message.timestamp"),
    (lambda: Message(text="x", timestamp="yesterday"), "Message.timestamp"),
    (lambda: Message(text=5), "Message.text"),
    (lambda: Message(text="x", id=5), "Message.id"),
    (lambda: Message(text="x", id=""), "Message.id"),
    (lambda: Message(text="x", id="  "), "Message.id"),
    (lambda: Message(text="x", speaker=["a"]), "Message.speaker"),
    (lambda: Message(text="x", mood="glad"), "Message.mood"),
    (lambda: Document(text=None), "Document.text"),
    (lambda: Document(text="x", created_at="2023-02-30T10:00"), "Document.created_at"),
    (lambda: Document(text="x", metadata=[1]), "Document.metadata"),
    (lambda: Document(text="x", title=5), "Document.title"),
    (lambda: Document(text="x", source_id={}), "Document.source_id"),
    (lambda: Document.model_validate({"txt": "x"}), "Document.text"),
    (lambda: Conversation(messages="hi"), "Conversation.messages"),
    (lambda: Conversation(messages=[{"text": "x", "timestamp": "2023-02-30"}]), "messages[0]"),
    (lambda: Conversation.model_validate_json('{"messages": [{"text": 1}]}'), "messages[0].text"),
]


@pytest.mark.parametrize(("build", "field"), MODELS)
def test_input_models_raise_library_errors_naming_the_field(build, field):
    with pytest.raises(InvalidFieldError) as info:
        build()
    assert field in str(info.value) and field in info.value.field
    assert isinstance(info.value, InvalidInputError | ValueError)
    assert info.value.errors and "loc" in info.value.errors[0]


async def test_revoke_read_is_refused_not_read_as_everything(filled):
    bob = await filled.create_user("bob")
    (dataset,) = await filled.datasets()
    await filled.grant(dataset.id, to=bob, permission="write")
    with pytest.raises(InvalidInputError, match="permission=None"):
        await filled.revoke(dataset.id, to=bob, permission="read")
    (shared,) = await filled.datasets(user=bob)
    assert shared.permission == "write"  # nothing was taken back
    await filled.revoke(dataset.id, to=bob, permission="write")
    (shared,) = await filled.datasets(user=bob)
    assert shared.permission == "read"


async def test_a_folder_that_changes_during_the_walk_is_a_clear_error(
    filled, tmp_path, monkeypatch
):
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "a.txt").write_text("Ada met Babbage.")
    (folder / "gone").mkdir()
    listing = os.scandir

    def vanishing(path="."):  # what walking /proc does: entries vanish mid-walk
        if os.fspath(path).endswith("gone"):
            raise FileNotFoundError(2, "No such file or directory", os.fspath(path))
        return listing(path)

    monkeypatch.setattr(os, "scandir", vanishing)
    with pytest.raises(InvalidInputError, match=r"cannot be read.*No such file.*try again"):
        await filled.remember(folder)


def test_visualize_graph_to_an_unwritable_path_is_refused(tmp_path):
    import asyncio

    async def go():
        async with RecallEngine(tmp_path / "data", embedder=DeterministicEmbedder()) as eng:
            await eng.remember("Ada met Babbage in London.")
            (tmp_path / "file").write_text("x")
            with pytest.raises(InvalidInputError, match="cannot be written"):
                await eng.visualize_graph(tmp_path / "file" / "g.html")

    asyncio.run(go())


CONSTRUCTOR = [
    (lambda t: {"data_dir": 123}, "data_dir"),
    (lambda t: {"data_dir": _file(t)}, "data_dir"),
    (lambda t: {"data_dir": t, "chunk_size": 0}, "chunk_size"),
    (lambda t: {"data_dir": t, "default_tenant": "../x"}, "default_tenant"),
    (lambda t: {"data_dir": t, "router_rules": t}, "router_rules"),
    (lambda t: {"data_dir": t, "router_rules": t / "missing.toml"}, "router_rules"),
    (lambda t: {"data_dir": str(t / "a\x00b")}, "NUL"),
    (lambda t: {"data_dir": str(t / "a\ud800b")}, "data_dir"),
    (lambda t: {"data_dir": "/proc/self"}, "data_dir"),
    (lambda t: {"data_dir": "/"}, "system folder"),
    (lambda t: {"data_dir": t, "embedding_cache_dir": "/dev/null"}, "embedding_cache_dir"),
    (lambda t: {"data_dir": t, "embedding_cache_dir": _file(t)}, "embedding_cache_dir"),
]


def test_an_unknown_constructor_argument_is_a_library_type_error(tmp_path):
    with pytest.raises(UnknownArgumentError) as info:
        RecallEngine(tmp_path, embedder=DeterministicEmbedder(), foo=1)
    assert isinstance(info.value, TypeError) and isinstance(info.value, RecallEngineError)
    assert "foo" in str(info.value) and "chunk_size" in str(info.value)  # and the known ones
    assert not tmp_path.joinpath("data").exists()


async def test_metadata_at_the_depth_limit_is_stored_as_given(tmp_path):
    deepest = _nested(MAX_METADATA_DEPTH - 1)  # MAX_METADATA_DEPTH levels in all
    async with RecallEngine(tmp_path, embedder=DeterministicEmbedder()) as eng:
        stored = await eng.remember("Deep notes.", metadata=deepest)
        (item,) = await eng.list_items()
    assert item["data_id"] == stored.data_ids[0]


def _file(tmp_path):
    path = tmp_path / "a-file"
    path.write_text("x")
    return path


@pytest.mark.parametrize(("kwargs", "named"), CONSTRUCTOR)
def test_engine_constructor_refuses_bad_configuration(tmp_path, kwargs, named):
    with pytest.raises(ConfigError) as info:
        RecallEngine(embedder=DeterministicEmbedder(), **kwargs(tmp_path))
    assert named in str(info.value)
    assert isinstance(info.value, ValueError)


def test_a_rules_file_that_is_not_utf8_is_named(tmp_path):
    path = tmp_path / "rules.toml"
    path.write_bytes(b"\xff\xfe[[rules]]")
    with pytest.raises(InvalidRuleError, match=r"rules.toml.*not UTF-8"):
        RecallEngine(tmp_path / "data", embedder=DeterministicEmbedder(), router_rules=path)


ENVIRONMENT = [
    ("RECALL_ENGINE_DATA_DIR", "<file>", "RECALL_ENGINE_DATA_DIR"),
    ("RECALL_ENGINE_CHUNK_SIZE", "0", "RECALL_ENGINE_CHUNK_SIZE"),
    ("RECALL_ENGINE_CHUNK_SIZE", "abc", "RECALL_ENGINE_CHUNK_SIZE"),
    ("RECALL_ENGINE_TENANT", "../x", "RECALL_ENGINE_TENANT"),
    ("RECALL_ENGINE_GRAPH_EXTRACTOR", "magic", "RECALL_ENGINE_GRAPH_EXTRACTOR"),
    ("LLM_TIMEOUT", "-1", "LLM_TIMEOUT"),
    ("RECALL_ENGINE_DATA_DIR", "", "RECALL_ENGINE_DATA_DIR"),
    ("RECALL_ENGINE_DATA_DIR", "/proc/self", "RECALL_ENGINE_DATA_DIR"),
    ("RECALL_ENGINE_EMBEDDING_CACHE_DIR", "/dev/null", "RECALL_ENGINE_EMBEDDING_CACHE_DIR"),
]


@pytest.mark.parametrize(("variable", "value", "named"), ENVIRONMENT)
def test_environment_values_are_refused_by_variable(monkeypatch, tmp_path, variable, value, named):
    monkeypatch.setenv(variable, str(_file(tmp_path)) if value == "<file>" else value)
    with pytest.raises(ConfigError) as info:
        RecallEngine(embedder=DeterministicEmbedder())
    assert named in str(info.value)


@pytest.fixture
def fast_cli(monkeypatch):
    original = RecallEngine.__init__

    def init(self, data_dir=None, **kwargs):
        kwargs.setdefault("embedder", DeterministicEmbedder())
        original(self, data_dir, **kwargs)

    monkeypatch.setattr(RecallEngine, "__init__", init)


CLI = [
    (lambda d, t: ["--data-dir", str(_file(t)), "datasets"], 2, "data_dir"),
    (lambda d, t: ["--data-dir", d, "forget", "--data-id", "nope"], 2, "data_id"),
    (lambda d, t: ["--data-dir", d, "forget", "--dataset", "nope"], 2, "nope"),
    (lambda d, t: ["--data-dir", d, "items", "--dataset", "nope"], 2, "nope"),
    (lambda d, t: ["--data-dir", d, "remember", "notes.txt"], 2, "Document(text="),
    (lambda d, t: ["--data-dir", d, "remember", "x", "--dataset", "a/b"], 2, "dataset_name"),
    (lambda d, t: ["--data-dir", d, "--tenant", "../x", "datasets"], 2, "tenant_id"),
    (lambda d, t: ["--data-dir", "/proc/self", "datasets"], 2, "data_dir"),
    (lambda d, t: ["--data-dir", "/proc/self", "serve"], 2, "data_dir"),
    (lambda d, t: ["--data-dir", d, "remember", "/"], 2, "system folder"),
    (lambda d, t: ["--data-dir", d, "recall", "Ulm", "--top-k", "0"], 2, "top_k"),
]


def _logical(data) -> tuple:
    """What the store holds, as a fresh engine sees it (Kuzu rewrites files on reopen)."""
    import asyncio

    async def read():
        async with RecallEngine(data, embedder=DeterministicEmbedder()) as eng:
            return await eng.list_datasets(), await eng.list_items()

    return asyncio.run(read())


@pytest.mark.parametrize(("argv", "status", "named"), CLI)
def test_cli_refuses_bad_input_without_a_traceback(tmp_path, capsys, fast_cli, argv, status, named):
    data = tmp_path / "data"
    assert cli.main(["--data-dir", str(data), "remember", "Einstein was born in Ulm."]) == 0
    capsys.readouterr()
    before = _logical(data)
    assert cli.main(argv(str(data), tmp_path)) == status
    err = capsys.readouterr().err
    assert err.startswith("error: ") and named in err and "Traceback" not in err
    assert _logical(data) == before


SERVE_FLAGS = [
    (["--port", "-1"], "--port"),
    (["--port", "70000"], "--port"),
    (["--port", "x"], "--port"),
    (["--max-body-bytes", "-5"], "--max-body-bytes"),
    (["--max-body-bytes", "0"], "--max-body-bytes"),
    (["--rate-limit", "-1"], "--rate-limit"),
    (["--rate-limit", "nan"], "--rate-limit"),
    (["--burst", "0"], "--burst"),
    (["--log-level", "loud"], "--log-level"),
]


@pytest.mark.parametrize(("flags", "named"), SERVE_FLAGS)
def test_serve_refuses_bad_flags_before_starting(tmp_path, capsys, flags, named):
    with pytest.raises(SystemExit) as info:
        cli.main(["--data-dir", str(tmp_path / "data"), "serve", *flags])
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert f"argument {named}" in err and "Traceback" not in err
    assert not (tmp_path / "data").exists()


WEAK_KEYS = [
    (["--api-key", "acme=aaaaaaaaaaaaaaaa"], {}, "aaaaaaaaaaaaaaaa", "1 distinct characters"),
    (["--admin-key", "abcdefgh" * 2], {}, "abcdefgh" * 2, "repeats a shorter pattern"),
    ([], {"RECALL_ENGINE_API_KEYS": "acme=0000000000abcdef"}, "0000000000abcdef", "bits"),
    ([], {"RECALL_ENGINE_ADMIN_KEY": "xyxyxyxyxyxyxyxyxy"}, "xyxyxyxyxyxyxyxyxy", "distinct"),
]


@pytest.mark.parametrize(("flags", "env", "key", "why"), WEAK_KEYS)
def test_serve_refuses_a_guessable_key_without_echoing_it(
    tmp_path, monkeypatch, flags, env, key, why
):
    for name in ("RECALL_ENGINE_API_KEYS", "RECALL_ENGINE_ADMIN_KEY"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    with pytest.raises(SystemExit) as info:
        cli.main(["--data-dir", str(tmp_path / "data"), "serve", *flags])
    message = str(info.value.code)
    assert "too easy to guess" in message and why in message and "keys create" in message
    assert key not in message
    assert not (tmp_path / "data").exists()


def test_cli_items_forget_and_version(tmp_path, capsys, fast_cli):
    data = str(tmp_path / "data")
    assert cli.main(["--data-dir", data, "remember", "Ada met Babbage.", "--dataset", "notes"]) == 0
    capsys.readouterr()
    assert cli.main(["--data-dir", data, "items"]) == 0
    (line,) = capsys.readouterr().out.splitlines()
    data_id, dataset, chunks, name = line.split("\t")
    assert (dataset, chunks, name) == ("notes", "1", "Ada met Babbage.")
    assert cli.main(["--data-dir", data, "forget", "--data-id", data_id]) == 0
    assert "forgot 1 chunks" in capsys.readouterr().out
    assert cli.main(["--data-dir", data, "items"]) == 0
    assert capsys.readouterr().out == ""
    with pytest.raises(SystemExit) as info:
        cli.main(["--version"])
    assert info.value.code == 0
    assert capsys.readouterr().out.startswith("recall-engine ")


HOLDER = textwrap.dedent(
    """
    import asyncio, sys, time
    from recall_engine import RecallEngine
    from recall_engine.testing import DeterministicEmbedder
    async def main():
        eng = RecallEngine(sys.argv[1], embedder=DeterministicEmbedder())
        await eng.remember("Einstein was born in Ulm.")
        print("ready", flush=True)
        time.sleep(30)
    asyncio.run(main())
    """
)


async def test_a_second_process_is_told_who_holds_the_store(tmp_path):
    data = tmp_path / "data"
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(data), "--holder-marker"],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "ready"
        with pytest.raises(StoreLockedError) as info:  # at start, not at the first call
            RecallEngine(data, embedder=DeterministicEmbedder())
        message = str(info.value)
        assert f"process {holder.pid}" in message
        assert "--holder-marker" not in message and str(data) not in message  # issue 16
        assert "recall-engine serve" in message and "HTTP API" in message
    finally:
        holder.kill()
        holder.wait()
    assert isinstance(info.value, RecallEngineError)
