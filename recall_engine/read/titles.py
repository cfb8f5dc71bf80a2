"""Document names as an index: which data items a query names by title.

A query that names a document's title ("Arthur's Magazine", "Ulm") is about
that document even when its passages never repeat the title. The index maps a
normalised name (case and spacing folded, a trailing qualifier in parentheses
dropped: "Lilu (mythology)" -> "lilu") to its data items, and is made again lazily
when the tenant's chunk index changes, like the graph snapshot: from the last one
and the items added since, when chunks were only added. Only real titles
are in it: an item given none is named by its opening words (or a conversation by
its message ids, ``core.item_names``), and such a name is left out, so a query
repeating a memory's first words gets no title bonus for it.
"""

from __future__ import annotations

import re
import threading
import weakref
from collections.abc import Iterable, Sequence

from recall_engine.core.item_names import is_titled
from recall_engine.storage.records import ChunkRecord
from recall_engine.storage.tenant import TenantStore

MAX_WORDS = 8  # longest title looked up as a phrase of the query
_QUALIFIER = re.compile(r"\s*\([^)]*\)\s*$")
_EXTENSION = re.compile(r"\.(?:txt|md|markdown|rst|html?|pdf|json|csv)$", re.IGNORECASE)
_WORD = re.compile(r"[^\W_]+(?:['’.-][^\W_]+)*")
_LOCK = threading.Lock()
_CACHE: weakref.WeakKeyDictionary[TenantStore, tuple[tuple[int, ...], dict[str, list[str]]]] = (
    weakref.WeakKeyDictionary()
)


def title_key(name: str) -> str:
    """A document name as looked up: qualifier and extension dropped, words lowercased."""
    name = _EXTENSION.sub("", _QUALIFIER.sub("", name))
    return " ".join(w.lower() for w in _WORD.findall(name))


def titled(chunks: Sequence[ChunkRecord]) -> bool:
    """Whether the item of these chunks (all of them, in order) has a title of its
    own, not the name the engine made from its opening words or message ids."""
    if not chunks:
        return False
    messages = [m for c in chunks for m in c.message_ids]
    return is_titled(chunks[0].document_name, chunks[0].text, messages)


def _build(store: TenantStore) -> _TitleIndex:
    out = _TitleIndex()
    out.mark = _mark(store)
    named = out.named
    for record in store.index.records(None):
        if record.data_id not in named:
            named[record.data_id] = titled(store.index.of_data(record.data_id))
        if not named[record.data_id]:
            continue
        key = title_key(record.document_name)
        if key and (not out.get(key) or out[key][-1] != record.data_id):
            ids = out.setdefault(key, [])
            if record.data_id not in ids:
                ids.append(record.data_id)
    out.starts = _first_words(out)
    return out


def _mark(store: TenantStore) -> tuple[int, int]:
    vectors = store.index.vectors
    return vectors.size, vectors.removed


def _extended(store: TenantStore, old: _TitleIndex) -> _TitleIndex | None:
    """``old`` with the items whose chunks were added since it was made, equal to an
    index made whole now; None when a chunk was removed since, or an item it holds
    gained chunks (its title may have changed)."""
    mark = _mark(store)
    if mark[1] != old.mark[1]:
        return None
    items = list(dict.fromkeys(r.data_id for r in store.index.vectors.rows_since(old.mark[0])))
    if any(data_id in old.named for data_id in items):
        return None
    out = _TitleIndex(old)
    out.mark, out.named = mark, dict(old.named)
    out.starts = {size: set(words) for size, words in old.starts.items()}
    for data_id in items:
        chunks = store.index.of_data(data_id)
        out.named[data_id] = titled(chunks)
        key = title_key(chunks[0].document_name) if out.named[data_id] else ""
        if key and data_id not in out.get(key, ()):
            out[key] = [*out.get(key, ()), data_id]
            words = key.split(" ")
            out.starts.setdefault(len(words), set()).add(words[0])
    return out


def _version(store: TenantStore) -> tuple[int, ...]:
    return (len(store.index), store.index.vectors.size)


def current_title_index(store: TenantStore) -> dict[str, list[str]] | None:
    """The index when it is built and current (no blocking work), else None."""
    with _LOCK:
        cached = _CACHE.get(store)
    return cached[1] if cached is not None and cached[0] == _version(store) else None


def title_index(store: TenantStore) -> dict[str, list[str]]:
    """Normalised document name -> data ids (all datasets; readers filter scope).

    Blocking on first use after a change: call it from a worker thread.
    """
    version = _version(store)
    with _LOCK:
        cached = _CACHE.get(store)
        if cached is not None and cached[0] == version:
            return cached[1]
    earlier = cached[1] if cached is not None else None
    built = _extended(store, earlier) if isinstance(earlier, _TitleIndex) else None
    if built is None:  # (an empty index is falsy)
        built = _build(store)
    with _LOCK:
        _CACHE[store] = (version, built)
    return built


def named_in(text: str, index: dict[str, list[str]]) -> list[tuple[str, list[str]]]:
    """(title, data ids) of every title that ``text`` names as a phrase, longest first.

    A phrase counts when one of its words is capitalised or a number in ``text``,
    as names are written, so a title that is also a common word ("It", "Home")
    is not found in every sentence that uses the word; and when the name does not
    go on past it (``_inside_longer_name``), so "United States" does not name a
    page titled "United".
    """
    matches = list(_WORD.finditer(text))
    words = [m.group() for m in matches]
    lowered = [w.lower() for w in words]
    named = [w[0].isupper() or w[0].isdigit() for w in words]
    starts = _starts(index)
    found: dict[str, list[str]] = {}
    for size in range(min(MAX_WORDS, len(words)), 0, -1):
        firsts = starts.get(size)
        if not firsts:
            continue
        for at in range(len(words) - size + 1):
            if lowered[at] not in firsts:  # no title of this length starts here
                continue
            phrase = " ".join(lowered[at : at + size])
            if (
                phrase in index
                and phrase not in found
                and any(named[at : at + size])
                and not _inside_longer_name(text, matches, at, at + size)
            ):
                found[phrase] = index[phrase]
    return list(found.items())


def _inside_longer_name(text: str, words: list[re.Match[str]], start: int, end: int) -> bool:
    """Whether words ``start:end`` are part of a longer name: the next word, or the one
    before unless it opens a sentence, is capitalised and joined to them by spaces
    only ("United States", "New York"; not "In Ulm" or "Ulm, Germany")."""

    def joined(left: int, right: int) -> bool:
        return text[words[left].end() : words[right].start()].isspace()

    if end < len(words) and words[end].group()[0].isupper() and joined(end - 1, end):
        return True
    before = start - 1
    if before < 0 or not words[before].group()[0].isupper() or not joined(before, start):
        return False
    opens = before == 0 or any(
        c in '.!?:;"“(' for c in text[words[before - 1].end() : words[before].start()]
    )
    return not opens


class _TitleIndex(dict[str, list[str]]):
    """The index, and the first words of its titles by word count (``named_in``
    joins only the phrases that could be a title); what it was made from: whether
    each item has a title, and the chunk rows read (``_mark``, taken before)."""

    starts: dict[int, set[str]]
    named: dict[str, bool]
    mark: tuple[int, int]

    def __init__(self, *args: object) -> None:
        super().__init__(*args)
        self.starts, self.named, self.mark = {}, {}, (0, 0)


def _starts(index: dict[str, list[str]]) -> dict[int, set[str]]:
    if isinstance(index, _TitleIndex):
        return index.starts
    return _first_words(index)


def _first_words(titles: Iterable[str]) -> dict[int, set[str]]:
    out: dict[int, set[str]] = {}
    for title in titles:
        words = title.split(" ")
        out.setdefault(len(words), set()).add(words[0])
    return out
