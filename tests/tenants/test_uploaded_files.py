"""Uploaded files (``upload_knowledge(files=...)``, the multipart upload) are stored
only when they are text: a PDF or Office document fails with the reason even when
its bytes happen to decode as UTF-8, a file with a NUL fails alone, and the other
files of the request are stored. A memory whose text holds a NUL fails alone too."""

from __future__ import annotations

import pytest

GOOD = ("notes.txt", b"Ann moved to Lyon in 2021.", {})


@pytest.mark.parametrize(
    ("filename", "body", "reason"),
    [
        ("report.pdf", b"%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\n%%EOF\n", "is a PDF"),
        ("scan.bin", b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n", "is a PDF"),
        ("notes.docx", b"PK\x03\x04 word/document.xml", "is a ZIP archive"),
        ("junk.pdf", bytes(range(1, 127)) * 4, "is a .pdf file"),
        ("dump.txt", b"start\x00\x01 tail", "NUL character"),
        ("latin1.txt", "café au lait".encode("latin-1"), "not UTF-8 text"),
        ("utf16.txt", "hello\x00".encode("utf-16"), "NUL character"),
    ],
)
async def test_a_file_that_is_not_text_fails_alone(engine, filename, body, reason) -> None:
    await engine.create_tenant("acme")
    result = await engine.tenants.upload_knowledge(
        "acme", files=[(filename, body, {}), GOOD], sub_tenant_id="kb"
    )
    failed, stored = result.results
    assert failed.status == "failed"
    assert reason in (failed.error or "")
    assert stored.status == "completed"
    listed = await engine.tenants.list_sources("acme", sub_tenant_id="kb")
    assert [s["id"] for s in listed] == [stored.source_id]


async def test_a_memory_with_a_nul_fails_alone(engine) -> None:
    await engine.create_tenant("acme")
    result = await engine.add_memory(
        "acme",
        [
            {"source_id": "ok", "text": "Ann drinks tea."},
            {"source_id": "bad", "text": "binary\x00dump"},
            {"source_id": "pair", "user_assistant_pairs": [{"user": "hi\x00", "assistant": "yo"}]},
        ],
    )
    assert [(r.source_id, r.status) for r in result.results] == [
        ("ok", "completed"),
        ("bad", "failed"),
        ("pair", "failed"),
    ]
    assert "NUL character" in (result.results[1].error or "")


async def test_a_file_with_a_byte_order_mark_is_read_as_remember_reads_it(engine) -> None:
    """UTF-16 with a byte-order mark (what Windows tools write) is text, as for a
    file given to remember()."""
    await engine.create_tenant("acme")
    body = "Ann moved to Lyon in 2021.\r\n".encode("utf-16")
    result = await engine.tenants.upload_knowledge(
        "acme", files=[("notes.txt", body, {})], sub_tenant_id="kb"
    )
    (stored,) = result.results
    assert stored.status == "completed", stored.error
    (listed,) = await engine.tenants.list_sources("acme", sub_tenant_id="kb")
    assert listed["text"].strip() == "Ann moved to Lyon in 2021."
