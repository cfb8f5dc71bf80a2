"""Turn whatever remember() was given into a flat list of validated source items.

Everything is read and checked here, before any store is touched, so bad input
fails with a clear error and leaves the store as it was.
"""

from __future__ import annotations

import errno
import json
import logging
import os
import stat
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
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
from recall_engine.core.validation import check_metadata, check_text, decode_text
from recall_engine.ingest.folders import UnreadFile, file_kind, resolved, walk
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
_NAMED_IN_A_MESSAGE = 10

logger = logging.getLogger(__name__)


@dataclass
class Sources:
    """What remember() was given: the items to store, and the files of its folders
    left unread (hidden files and folders, left out on purpose, are only counted)."""

    items: list[SourceItem] = field(default_factory=list)
    unread: list[UnreadFile] = field(default_factory=list)
    hidden: int = 0


def collect_sources(
    data: object,
    metadata: dict[str, object] | None = None,
    *,
    skip: Sequence[Path] = (),
    max_chars: int | None = None,
) -> Sources:
    """Validate ``data`` and return its items; ``metadata`` is merged into each.

    Blocking (it reads files): async callers run it in a worker thread. Only
    regular files are read, each at most ``MAX_FILE_BYTES``; a folder walk
    leaves out hidden files and folders (names starting with ``.``) and the
    folders in ``skip`` (the engine's own data dir), and returns the files it
    cannot read (another type, a link to a folder, a broken link, a FIFO) in
    ``Sources.unread``, named in a logged warning. An item of more than
    ``max_chars`` characters (``SourceItem.chars``) is refused.

    Raises:
        InvalidInputError: empty text, unreadable, oversized or non-regular file
            (FIFO, socket, device), malformed file, bad conversation, a folder
            (or one inside it) that cannot be listed.
        InputTooLargeError: an item over ``max_chars``.
        UnsupportedFileTypeError: a file with an extension remember() cannot read.
    """
    base = check_metadata(metadata)
    skipped = tuple(resolved(p) for p in skip)
    found = Sources()
    found.items = list(_collect(data, depth=0, skip=skipped, found=found))
    if not found.items:
        raise InvalidInputError("remember() got no data: pass text, a file, a folder or a list.")
    for number, item in enumerate(found.items):
        if max_chars is not None:
            label = f"remember() item {number} ({item.kind} {opening_words(item.name, 6)!r})"
            check_item_size(item.chars, limit=max_chars, what=label)
        item.metadata = {**base, **item.metadata}
    if found.unread:
        logger.warning(
            "remember() did not read %d file(s) in the folders it was given: %s. It reads "
            "regular %s files and does not follow links to folders; convert the other files, "
            "or pass a linked folder itself, to remember them.",
            len(found.unread),
            _listing(found.unread),
            ", ".join(SUPPORTED_SUFFIXES),
        )
    if found.hidden:
        logger.info(
            "remember() left out %d hidden file(s) or folder(s) (names starting with '.').",
            found.hidden,
        )
    return found


def _listing(unread: Sequence[UnreadFile]) -> str:
    named = ", ".join(str(u) for u in unread[:_NAMED_IN_A_MESSAGE])
    more = len(unread) - _NAMED_IN_A_MESSAGE
    return f"{named} and {more} more" if more > 0 else named


def _collect(
    data: object, *, depth: int, skip: tuple[Path, ...], found: Sources
) -> Iterable[SourceItem]:
    if isinstance(data, Path):
        yield from _from_path(data.expanduser(), skip=skip, found=found)
    elif isinstance(data, str):
        check_text(data, what="remember() text")
        if _looks_like_path(data):
            path = Path(data.strip()).expanduser()
            yield from _from_path(path, skip=skip, found=found, from_string=True)
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
            yield from _collect(element, depth=depth + 1, skip=skip, found=found)
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
    path: Path, *, skip: tuple[Path, ...], found: Sources, from_string: bool = False
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
            files, unread, hidden = walk(path, skip, suffixes=SUPPORTED_SUFFIXES)
        except OSError as exc:  # a folder that vanished or cannot be listed mid-walk
            advice = (
                "it changed while being read, try again"
                if exc.errno == errno.ENOENT
                else "check its permissions"
            )
            raise InvalidInputError(
                f"Folder {path} cannot be read: {exc.strerror or exc}"
                f"{f' ({exc.filename})' if exc.filename else ''}; {advice}."
            ) from exc
        if not files:
            left = [_listing(unread)] if unread else []
            if hidden:
                left.append(f"{hidden} hidden file(s) or folder(s) (names starting with '.')")
            raise InvalidInputError(
                f"Folder {path} holds no files remember() can read "
                f"({', '.join(SUPPORTED_SUFFIXES)})"
                + (f"; left unread: {'; '.join(left)}." if left else ".")
            )
        found.unread.extend(unread)
        found.hidden += hidden
        for file in files:
            yield from _from_file(file)
    elif path.exists():
        yield from _from_file(path)
    elif path.is_symlink():
        raise InvalidInputError(
            f"File {path} is a link to {os.readlink(path)}, which does not exist (or is a "
            "loop of links); fix the link or pass the file it should point to."
        )
    elif from_string:
        raise InvalidInputError(
            f"remember() took {str(path)!r} for a file path, but that file does not exist. "
            "Check the path, or to store the string itself as text pass "
            f"Document(text={str(path)!r})."
        )
    else:
        raise InvalidInputError(f"File {path} does not exist; check the path.")


def _read_text(path: Path) -> str:
    """The text of a regular file (``decode_text``), read in bounded blocks; a NUL
    in it (binary data, or UTF-16 text without a byte-order mark) is refused naming
    the file.

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
            raise _not_regular(path, file_kind(info.st_mode))
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
    return decode_text(b"".join(blocks), what=f"File {path}")


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
    if not text.strip():
        raise InvalidInputError(f"File {path} is empty; write something in it or remove it.")
    if suffix in (".txt", ".md", ".markdown"):
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
            values = [(str(path), json.loads(text))]
        else:
            values = [
                (f"{path}, line {number}", json_line(path, number, line))
                for number, line in enumerate(text.splitlines(), start=1)
                if line.strip()
            ]
            if all(is_message(v) for _, v in values):
                values = [(str(path), {"messages": [v for _, v in values]})]
    except json.JSONDecodeError as exc:
        raise InvalidInputError(f"File {path} is not valid JSON: {exc}.") from exc
    count = 0
    for origin, value in values:
        for item in from_json_value(value, origin=origin, title=path.name):
            item.source_id = item.source_id or source_id
            item.metadata = {"source_path": str(path), **item.metadata}
            count += 1
            yield item
    if not count:
        raise InvalidInputError(
            f"File {path} holds no documents or conversations (an empty list); remove it or "
            "add {'text': ...} objects to it."
        )
