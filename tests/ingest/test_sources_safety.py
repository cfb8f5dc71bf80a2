"""remember()'s file reading: regular files only, bounded, off the event loop (issue 10)."""

import asyncio
import os
import re
import socket

import pytest

from recall_engine import Document
from recall_engine.core.errors import InvalidInputError
from recall_engine.ingest import sources
from recall_engine.ingest.sources import collect_sources


def test_a_fifo_is_refused_without_blocking(tmp_path):
    fifo = tmp_path / "fifo.txt"
    os.mkfifo(fifo)
    # Opening a FIFO without a writer blocks forever: a refusal shows it was never opened.
    with pytest.raises(InvalidInputError, match=r"named pipe \(FIFO\).*regular files"):
        collect_sources(fifo)


def test_a_socket_is_refused(tmp_path):
    path = tmp_path / "s.txt"
    server = socket.socket(socket.AF_UNIX)
    try:
        server.bind(str(path))
        with pytest.raises(InvalidInputError, match="regular files"):
            collect_sources(path)
    finally:
        server.close()


def test_a_device_is_refused():
    with pytest.raises(InvalidInputError, match="a device"):
        sources._read_text(sources.Path("/dev/zero"))


def test_a_folder_walk_skips_fifos(tmp_path):
    (tmp_path / "a.txt").write_text("Alpha.")
    os.mkfifo(tmp_path / "b.txt")
    assert [i.name for i in collect_sources(tmp_path).items] == ["a.txt"]


def test_a_folder_walk_reports_links_and_special_files_it_does_not_read(tmp_path):
    (tmp_path / "a.txt").write_text("Alpha.")
    os.mkfifo(tmp_path / "pipe.txt")
    os.symlink(tmp_path / "gone.txt", tmp_path / "broken.txt")
    os.symlink(tmp_path / "loop.txt", tmp_path / "loop.txt")
    elsewhere = tmp_path.parent / f"{tmp_path.name}-linked"
    elsewhere.mkdir()
    (elsewhere / "b.txt").write_text("Beta.")
    os.symlink(elsewhere, tmp_path / "linked")
    found = sources.collect_sources(tmp_path)
    assert [i.name for i in found.items] == ["a.txt"]
    assert {u.path.name: u.reason for u in found.unread} == {
        "broken.txt": "a broken link",
        "linked": "a link to a folder, not followed",
        "loop.txt": "a loop of links",
        "pipe.txt": "a named pipe (FIFO)",
    }


def test_a_subfolder_that_cannot_be_listed_fails_the_walk(tmp_path, monkeypatch):
    (tmp_path / "a.txt").write_text("Alpha.")
    (tmp_path / "locked").mkdir()
    (tmp_path / "locked" / "b.txt").write_text("Beta.")
    listing = os.scandir

    def denied(path="."):  # root ignores chmod, so fail the listing itself
        if os.fspath(path).endswith("locked"):
            raise PermissionError(13, "Permission denied", os.fspath(path))
        return listing(path)

    monkeypatch.setattr(os, "scandir", denied)
    with pytest.raises(InvalidInputError, match=r"cannot be read: Permission denied.*locked"):
        collect_sources(tmp_path)


@pytest.mark.parametrize("target", ["gone.txt", "loop.txt"])
def test_a_broken_link_says_where_it_points(tmp_path, target):
    link = tmp_path / "loop.txt"
    os.symlink(tmp_path / target, link)
    with pytest.raises(InvalidInputError, match=rf"is a link to .*{target}, which does not exist"):
        collect_sources(link)


def test_reads_are_bounded(tmp_path, monkeypatch):
    monkeypatch.setattr(sources, "MAX_FILE_BYTES", 1000)
    path = tmp_path / "big.txt"
    path.write_text("x " * 1000)
    with pytest.raises(InvalidInputError, match="larger than"):
        collect_sources(path)


async def test_remember_of_a_fifo_never_blocks_the_event_loop(engine, tmp_path):
    fifo = tmp_path / "fifo.txt"
    os.mkfifo(fifo)
    ticks = 0

    async def ticker() -> None:
        nonlocal ticks
        while True:
            ticks += 1
            await asyncio.sleep(0.001)

    task = asyncio.create_task(ticker())
    try:
        with pytest.raises(InvalidInputError, match="FIFO"):
            await asyncio.wait_for(engine.remember(fifo), 5)
    finally:
        task.cancel()
    assert ticks > 0
    assert not (engine.config.data_dir / "tenants").exists()


async def test_remember_of_the_folder_holding_the_data_dir_skips_the_store(tmp_path, hash_embedder):
    from recall_engine import RecallEngine

    (tmp_path / "notes.txt").write_text("Ada wrote the first program.")
    async with RecallEngine(tmp_path / "data", embedder=hash_embedder) as eng:
        await eng.remember("Something else entirely.")
        (tmp_path / "data" / "stray.json").write_text("not json")  # would fail if read
        result = await eng.remember(tmp_path)
    assert len(result.data_ids) == 1


def test_a_missing_file_name_says_how_to_store_the_string():
    with pytest.raises(InvalidInputError, match=r"file path.*Document\(text='notes.txt'\)"):
        collect_sources("notes.txt")


@pytest.mark.parametrize(
    ("data", "named"),
    [
        ("bad \ud800", "remember() text"),
        (Document(text="bad \ud800"), "Document.text"),
        (Document(text="ok", title="t\udfff"), "Document.title"),
    ],
)
def test_invalid_unicode_is_refused_by_name(data, named):
    with pytest.raises(InvalidInputError, match=rf"{re.escape(named)}.*surrogate"):
        collect_sources(data)


def test_bad_metadata_values_are_refused_by_key():
    with pytest.raises(InvalidInputError, match=r"metadata\['k'\].*surrogate"):
        collect_sources("x", metadata={"k": "\ud800"})
    with pytest.raises(InvalidInputError, match=r"metadata\['when'\].*JSON values"):
        collect_sources("x", metadata={"when": object()})


def test_a_bad_jsonl_line_is_reported_by_its_number(tmp_path):
    path = tmp_path / "chat.jsonl"
    path.write_text('{"speaker": "A", "text": "hi"}\n{broken\n')
    with pytest.raises(InvalidInputError, match="line 2"):
        collect_sources(path)
