"""Turn whatever remember() was given into a flat list of validated source items.

Everything is read and checked here, before any store is touched, so bad input
fails with a clear error and leaves the store as it was.
"""

from __future__ import annotations

import errno
import json
import os
import stat
from collections.abc import Iterable, Sequence
from pathlib import Path

import regex

from recall_engine.core.errors import (
    InvalidInputError,
    UnsupportedFileTypeError,
)
from recall_engine.core.inputs import MAX_JSON_DEPTH, json_depth, system_folder
from recall_engine.core.item_names import opening_words
from recall_engine.core.limits import check_item_size
from recall_engine.core.models import Conversation, Document
from recall_engine.core.validation import check_metadata, check_text
from recall_engine.ingest.source_items import (
    SourceItem,
    from_conversation,
    from_document,
    from_json_value,
    is_message,
    json_line,
)

SUPPORTED_SUFFIXES = (".txt", ".md", ".markdown", ".json", ".jsonl")
MAX_FILE_BYTES = 256 * 1024 * 1024
"""The largest file remember() reads; a larger one is refused before it is read whole."""
_READ_BLOCK = 1 << 20


def collect_items(
    data: object,
    metadata: dict[str, object] | None = None,
    *,
    skip: Sequence[Path] = (),
    max_chars: int | None = None,
) -> list[SourceItem]:
    """Validate ``data`` and return its items; ``metadata`` is merged into each.

    Blocking (it reads files): async callers run it in a worker thread. Only
    regular files are read, each at most ``MAX_FILE_BYTES``; a folder walk
    leaves out the folders in ``skip`` (the engine's own data dir). An item of
    more than ``max_chars`` characters (``SourceItem.chars``) is refused.

    Raises:
        InvalidInputError: empty text, unreadable, oversized or non-regular file
            (FIFO, socket, device), malformed file, bad conversation.
        InputTooLargeError: an item over ``max_chars``.
        UnsupportedFileTypeError: a file with an extension remember() cannot read.
    """
    base = check_metadata(metadata)
    skipped = tuple(_resolved(p) for p in skip)
    items = list(_collect(data, depth=0, skip=skipped))
    if not items:
        raise InvalidInputError("remember() got no data: pass text, a file, a folder or a list.")
    for number, item in enumerate(items):
        if max_chars is not None:
            label = f"remember() item {number} ({item.kind} {opening_words(item.name, 6)!r})"
            check_item_size(item.chars, limit=max_chars, what=label)
        item.metadata = {**base, **item.metadata}
    return items


def _resolved(path: Path) -> Path:
    try:
        return Path(path).expanduser().resolve()
    except (OSError, RuntimeError):
        return Path(path).absolute()


def _collect(data: object, *, depth: int, skip: tuple[Path, ...]) -> Iterable[SourceItem]:
    if isinstance(data, Path):
        yield from _from_path(data, skip=skip)
    elif isinstance(data, str):
        check_text(data, what="remember() text")
        if _looks_like_path(data):
            yield from _from_path(Path(data.strip()).expanduser(), skip=skip, from_string=True)
        else:
            yield from_document(Document.model_construct(text=data), kind="text")
    elif isinstance(data, Document):
        yield from_document(data, kind="document")
    elif isinstance(data, Conversation):
        yield from_conversation(data)
    elif isinstance(data, dict):
        yield from from_json_value(data, origin="dict")
    elif isinstance(data, list | tuple):
        if depth > 0:
            raise InvalidInputError("remember() accepts a list of items, not nested lists.")
        for element in data:
            yield from _collect(element, depth=depth + 1, skip=skip)
    else:
        raise InvalidInputError(
            f"remember() cannot store a {type(data).__name__}; pass a string, a path, a "
            "Document, a Conversation, or a list of these."
        )


# Extensions that mark a one-word string as a file name rather than text to remember.
_FILE_LIKE = regex.compile(
    r"^\S+\.(?:txt|md|markdown|json|jsonl|pdf|docx?|html?|csv|xlsx?|pptx?|rtf|xml|ya?ml)$",
    regex.IGNORECASE,
)


def _looks_like_path(text: str) -> bool:
    stripped = text.strip()
    if not stripped or "\n" in stripped or len(stripped) > 4096:
        return False
    try:
        if Path(stripped).expanduser().exists():
            return True
    except (OSError, ValueError):  # a name too long for the OS, or a NUL byte: text
        return False
    return bool(_FILE_LIKE.match(stripped)) or (
        stripped.startswith(("/", "./", "~/", "../")) and " " not in stripped
    )


def _from_path(
    path: Path, *, skip: tuple[Path, ...] = (), from_string: bool = False
) -> Iterable[SourceItem]:
    system = system_folder(path)
    if system is not None:
        raise InvalidInputError(
            f"remember() does not read {path}: it is the system folder {system}, whose "
            "files are not documents (and in /proc, /sys and /dev appear and vanish as "
            "processes run). Pass the folder of your own files."
        )
    if path.is_dir():
        try:
            files = sorted(
                p
                for p in path.rglob("*")
                if p.suffix.lower() in SUPPORTED_SUFFIXES
                and not any(part.startswith(".") for part in p.relative_to(path).parts)
                and not _inside(p, skip)
                and system_folder(p) is None  # a link into /proc is not a document
                and p.is_file()  # follows links; a FIFO, socket or device is not a file
            )
        except OSError as exc:  # a folder that vanished or cannot be listed mid-walk
            raise InvalidInputError(
                f"Folder {path} cannot be read: {exc.strerror or exc}"
                f"{f' ({exc.filename})' if exc.filename else ''}; check its permissions."
            ) from exc
        if not files:
            raise InvalidInputError(
                f"Folder {path} holds no supported files ({', '.join(SUPPORTED_SUFFIXES)})."
            )
        for file in files:
            yield from _from_file(file)
    elif path.exists():
        yield from _from_file(path)
    elif from_string:
        raise InvalidInputError(
            f"remember() took {str(path)!r} for a file path, but that file does not exist. "
            "Check the path, or to store the string itself as text pass "
            f"Document(text={str(path)!r})."
        )
    else:
        raise InvalidInputError(f"File {path} does not exist; check the path.")


def _inside(path: Path, folders: tuple[Path, ...]) -> bool:
    if not folders:
        return False
    resolved = _resolved(path)
    return any(resolved == f or f in resolved.parents for f in folders)


def _read_text(path: Path) -> str:
    """The UTF-8 text of a regular file, read in bounded blocks; a NUL in it (binary
    data, or UTF-16 text) is refused naming the file.

    The file is opened without blocking and checked on the open descriptor, so
    a FIFO, socket or device is refused instead of hanging the caller.
    """
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as exc:
        if exc.errno == errno.ENXIO:  # a socket, or a FIFO with no writer on some systems
            raise _not_regular(path, "a socket or special file") from exc
        raise InvalidInputError(f"File {path} cannot be read: {exc.strerror or exc}.") from exc
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise _not_regular(path, _file_kind(info.st_mode))
        if info.st_size > MAX_FILE_BYTES:
            raise _too_large(path)
        blocks: list[bytes] = []
        size = 0
        while block := os.read(fd, _READ_BLOCK):
            size += len(block)
            if size > MAX_FILE_BYTES:  # grew while being read
                raise _too_large(path)
            blocks.append(block)
    except OSError as exc:
        raise InvalidInputError(f"File {path} cannot be read: {exc.strerror or exc}.") from exc
    finally:
        os.close(fd)
    try:
        text = b"".join(blocks).decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InvalidInputError(
            f"File {path} is not UTF-8 text ({exc.reason} at byte {exc.start}); convert it "
            "to UTF-8 first."
        ) from exc
    return check_text(text.removeprefix("\ufeff"), what=f"File {path}")


def _file_kind(mode: int) -> str:
    if stat.S_ISFIFO(mode):
        return "a named pipe (FIFO)"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISDIR(mode):
        return "a folder"
    return "not a regular file"


def _not_regular(path: Path, kind: str) -> InvalidInputError:
    return InvalidInputError(
        f"File {path} is {kind}; remember() reads only regular files. Copy the data into a "
        "file, or pass its text as a string."
    )


def _too_large(path: Path) -> InvalidInputError:
    return InvalidInputError(
        f"File {path} is larger than {MAX_FILE_BYTES // (1024 * 1024)} MiB; split it into "
        "smaller files."
    )


def _from_file(path: Path) -> Iterable[SourceItem]:
    suffix = path.suffix.lower()
    if suffix not in SUPPORTED_SUFFIXES:
        raise UnsupportedFileTypeError(
            f"File {path.name} has an unsupported type {suffix or '(none)'!r}; remember() reads "
            f"{', '.join(SUPPORTED_SUFFIXES)}."
        )
    text = _read_text(path)
    try:
        source_id = str(path.resolve())
    except (OSError, RuntimeError) as exc:  # vanished after the read, or a link loop
        raise InvalidInputError(f"File {path} cannot be read: {exc}.") from exc
    if suffix in (".txt", ".md", ".markdown"):
        if not text.strip():
            raise InvalidInputError(f"File {path} is empty.")
        doc = Document(text=text, title=path.name, source_id=source_id)
        item = from_document(doc, kind="file")
        item.metadata = {"source_path": str(path), **item.metadata}
        yield item
        return
    if json_depth(text) > MAX_JSON_DEPTH:
        raise InvalidInputError(
            f"File {path} nests arrays or objects more than {MAX_JSON_DEPTH} levels deep; "
            "remember() reads documents ({'text': ...}) and conversations ({'messages': "
            "[...]}), flatten the file to those."
        )
    try:
        if suffix == ".json":
            values = [json.loads(text)]
        else:
            values = []
            for number, line in enumerate(text.splitlines(), start=1):
                if line.strip():
                    values.append(json_line(path, number, line))
            if values and all(is_message(v) for v in values):
                values = [{"messages": values}]
    except json.JSONDecodeError as exc:
        raise InvalidInputError(f"File {path} is not valid JSON: {exc}.") from exc
    if not values:
        raise InvalidInputError(f"File {path} is empty.")
    for value in values:
        for item in from_json_value(value, origin=str(path), title=path.name):
            item.source_id = item.source_id or source_id
            item.metadata = {"source_path": str(path), **item.metadata}
            yield item
