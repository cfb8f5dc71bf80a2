"""The tenant API's writes: memories and knowledge sources remembered in a
sub-tenant's collection (one ingest per request, each item's error reported), and
sources deleted by id."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from pathlib import PurePath
from typing import TypeVar

from recall_engine.core.errors import InvalidInputError
from recall_engine.core.hydra import (
    DEFAULT_SUB_TENANT,
    AddMemoryResponse,
    KnowledgeSource,
    MemoryItem,
    MemoryResultItem,
    SourceUploadResponse,
    SourceUploadResultItem,
)
from recall_engine.core.models import Conversation, Document
from recall_engine.core.validation import decode_text
from recall_engine.read.tenant_reader import TenantReader
from recall_engine.tenants.base import Collection, TenantBase
from recall_engine.tenants.conversations import (
    GROUP_PREFIX,
    Turn,
    as_conversation,
    is_group,
    merged,
    stored_turns,
)
from recall_engine.tenants.ids import KNOWLEDGE, MEMORIES
from recall_engine.tenants.memories import Prepared, prepare_memory, prepare_source

SummaryT = TypeVar("SummaryT", AddMemoryResponse, SourceUploadResponse)


class TenantIngest(TenantBase):
    """add_memory, upload_knowledge, delete_sources."""

    async def add_memory(
        self,
        tenant_id: str,
        memories: Sequence[MemoryItem | Mapping[str, object]],
        *,
        sub_tenant_id: str | None = None,
        upsert: bool = True,
    ) -> AddMemoryResponse:
        """Store memories (text, markdown or user/assistant pairs) in a sub-tenant;
        a memory whose ``source_id`` exists replaces it (unless ``upsert`` is False,
        then it fails). Returns once they are searchable.

        Raises:
            TenantNotFoundError: no such tenant.
            InvalidInputError: a bad sub-tenant id.
        """
        items = [MemoryItem.model_validate(m) for m in memories]
        prepared = [prepare_memory(m) for m in items]
        results = await self._ingest(tenant_id, MEMORIES, sub_tenant_id, prepared, upsert=upsert)
        out = [
            MemoryResultItem(
                source_id=p.source_id,
                title=p.title,
                status="failed" if error else "completed",
                infer=item.infer,
                error=error,
            )
            for item, p, error in zip(items, prepared, results, strict=True)
        ]
        return _summary(AddMemoryResponse, out)

    async def upload_knowledge(
        self,
        tenant_id: str,
        sources: Sequence[KnowledgeSource | Mapping[str, object]] = (),
        *,
        files: Sequence[tuple[str, bytes, Mapping[str, object]]] = (),
        sub_tenant_id: str | None = None,
        upsert: bool = True,
    ) -> SourceUploadResponse:
        """Store documents in a sub-tenant's knowledge: app sources, and files given
        as (filename, bytes, metadata) whose bytes are text (UTF-8, or UTF-16 / UTF-32
        with a byte-order mark); any other file (a PDF, an Office document, other
        binary bytes) fails with the reason.

        Raises:
            TenantNotFoundError: no such tenant.
        """
        prepared = [prepare_source(KnowledgeSource.model_validate(s)) for s in sources]
        for filename, body, meta in files:
            fid = str(meta.get("file_id") or meta.get("id") or filename)
            try:
                text = _text(filename, body)
            except InvalidInputError as exc:
                prepared.append(Prepared(fid, filename, error=str(exc), filename=filename))
                continue
            fields = {**meta, "text": text}
            fields.setdefault("id", meta.get("file_id"))
            fields.setdefault("title", filename)
            prepared.append(
                prepare_source(KnowledgeSource.model_validate(fields), filename=filename)
            )
        results = await self._ingest(tenant_id, KNOWLEDGE, sub_tenant_id, prepared, upsert=upsert)
        out = [
            SourceUploadResultItem(
                source_id=p.source_id,
                filename=p.filename,
                status="failed" if error else "completed",
                error=error,
            )
            for p, error in zip(prepared, results, strict=True)
        ]
        return _summary(SourceUploadResponse, out)

    async def _ingest(
        self,
        tenant_id: str,
        collection: str,
        sub: str | None,
        prepared: list[Prepared],
        *,
        upsert: bool,
    ) -> list[str | None]:
        """Remember the prepared sources in one ingest (turns with the rest of their
        conversations); the error of each (or None)."""
        store = await self._store(tenant_id)
        name, dataset_id = self._dataset(store, collection, sub)
        errors: list[str | None] = [p.error for p in prepared]
        seen: set[str] = set()
        for n, p in enumerate(prepared):
            if errors[n] is None and p.source_id in seen:
                errors[n] = f"source_id {p.source_id!r} appears twice in this request"
            seen.add(p.source_id)
        reader = await asyncio.to_thread(self.engine.reader, store, [dataset_id])
        has_turns = any(p.is_turn for p, e in zip(prepared, errors, strict=True) if e is None)
        stored = await _conversations(reader) if has_turns else {}
        if not upsert:
            ids = [p.source_id for p, e in zip(prepared, errors, strict=True) if e is None]
            existing = set(await reader.data_ids_of_sources(ids))
            existing |= {t.source_id for _, turns in stored.values() for t in turns}
            for n, p in enumerate(prepared):
                if errors[n] is None and p.source_id in existing:
                    errors[n] = f"source_id {p.source_id!r} exists and upsert is false"
        ok = [p for p, e in zip(prepared, errors, strict=True) if e is None]
        data: list[Document | Conversation] = [p.data for p in ok if p.data is not None]
        turns = [p.turn for p in ok if p.turn is not None]
        emptied = _regroup(turns, {p.source_id for p in ok}, stored, data)
        if turns:  # a turn stored as an item of its own (it expired, or from before groups)
            alone = await reader.data_ids_of_sources([t.source_id for t in turns])
            emptied += [d for s, d in alone.items() if not is_group(s)]
        if data:
            await self.engine.remember(data, dataset_name=name, tenant_id=store)
            self.registry.add_sub_tenant(tenant_id, sub or DEFAULT_SUB_TENANT)
            reader = await asyncio.to_thread(self.engine.reader, store, [dataset_id])
            kept = await reader.data_ids_of_sources([p.source_id for p in ok if p.turn is None])
            for n, p in enumerate(prepared):
                if errors[n] is None and p.turn is None and p.source_id not in kept:
                    # The engine keeps identical content once per dataset.
                    errors[n] = "the same content is already stored in this sub-tenant"
        if emptied:
            await self.engine.forget(data_id=emptied, tenant_id=store)
        return errors

    async def delete_sources(
        self,
        tenant_id: str,
        source_ids: Sequence[str],
        *,
        sub_tenant_id: str | None = None,
        collection: Collection = KNOWLEDGE,
    ) -> dict[str, bool]:
        """Delete sources by id; source id -> whether it existed (and is now gone).
        A conversation turn's conversation is stored again without it (or forgotten
        when no turn is left)."""
        store = await self._store(tenant_id)
        name, dataset_id = self._dataset(store, collection, sub_tenant_id)
        reader = await asyncio.to_thread(self.engine.reader, store, [dataset_id])
        wanted = set(source_ids)
        found = {
            s: d
            for s, d in (await reader.data_ids_of_sources(list(wanted))).items()
            if not is_group(s)
        }
        gone: set[str] = set(found)
        again: list[Document | Conversation] = []
        emptied: list[str] = []
        for key, (data_id, turns) in (await _conversations(reader)).items():
            hit = {t.source_id for t in turns} & wanted
            if not hit:
                continue
            gone |= hit
            left = merged(turns, [], hit)
            if left:
                again.append(as_conversation(key, left))
            else:
                emptied.append(data_id)
        if again:
            await self.engine.remember(again, dataset_name=name, tenant_id=store)
        forget = sorted(set(found.values()) | set(emptied))
        if forget:
            await self.engine.forget(data_id=forget, tenant_id=store)
        return {s: s in gone for s in source_ids}


async def _conversations(reader: TenantReader) -> dict[str, tuple[str, list[Turn]]]:
    """Conversation key -> (data id, stored turns) of the scope's grouped conversations."""
    out: dict[str, tuple[str, list[Turn]]] = {}
    for row in await reader.documents():
        if is_group(row.source_id):
            key = (row.source_id or "")[len(GROUP_PREFIX) :]
            out[key] = (row.id, stored_turns(await reader.chunks_of_data([row.id])))
    return out


def _regroup(
    turns: Sequence[Turn],
    ids: set[str],
    stored: dict[str, tuple[str, list[Turn]]],
    data: list[Document | Conversation],
) -> list[str]:
    """Add to ``data`` each conversation that a write changes: a new turn joins its
    conversation (replacing a stored turn of its id), and a source of a stored turn's
    id (``ids``: every source written) takes its place out of another conversation.
    Returns the data ids of conversations left with no turn."""
    emptied: list[str] = []
    for key in dict.fromkeys([*stored, *(t.key for t in turns)]):
        data_id, old = stored.get(key, ("", []))
        new = [t for t in turns if t.key == key]
        moved = {t.source_id for t in old} & (ids - {t.source_id for t in new})
        if not new and not moved:
            continue
        left = merged(old, new, moved)
        if left:
            data.append(as_conversation(key, left))
        elif data_id:
            emptied.append(data_id)
    return emptied


# Document formats whose bytes are not their text: stored as text they would be
# noise, even when the bytes happen to decode (a PDF written in ASCII).
_BINARY_MAGIC = (
    (b"%PDF-", "a PDF"),
    (b"PK\x03\x04", "a ZIP archive (a .docx, .xlsx, .pptx, .odt, ...)"),
    (b"\xd0\xcf\x11\xe0", "an Office 97-2003 document"),
)
_BINARY_SUFFIXES = frozenset(
    {".pdf", ".doc", ".docx", ".xls", ".xlsx", ".ppt", ".pptx", ".odt", ".ods", ".odp"}
    | {".rtf", ".epub", ".zip", ".gz"}
)
_ONLY_TEXT = "only text files can be read: extract its text and upload that"


def _text(filename: str, body: bytes) -> str:
    """The text of an uploaded file, as ``remember()`` reads a file: UTF-8, or UTF-16 /
    UTF-32 with a byte-order mark (``decode_text``).

    Raises:
        InvalidInputError: a PDF, an Office document or other binary bytes, or text
            in another encoding, saying why.
    """
    kind = next((k for magic, k in _BINARY_MAGIC if body.startswith(magic)), None)
    suffix = PurePath(filename).suffix.lower()
    if kind is None and suffix in _BINARY_SUFFIXES:
        kind = f"a {suffix} file"
    if kind is not None:
        raise InvalidInputError(f"{filename} is {kind}, not text; {_ONLY_TEXT}")
    return decode_text(body, what=filename)


def _summary(
    model: type[SummaryT], results: Sequence[MemoryResultItem | SourceUploadResultItem]
) -> SummaryT:
    """The response of a write: its per-item results and their counts."""
    failed = sum(1 for r in results if r.status == "failed")
    return model.model_validate(
        {
            "success": failed == 0,
            "message": f"{len(results) - failed} stored, {failed} failed",
            "results": list(results),
            "success_count": len(results) - failed,
            "failed_count": failed,
        }
    )
