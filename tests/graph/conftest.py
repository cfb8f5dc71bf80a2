"""Fixtures for the graph tests: a short real text and one LoCoMo conversation."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

import pytest

from recall_engine.graph import ChunkInput, RuleBasedExtractor

LOCOMO = Path(__file__).resolve().parents[3] / "shared/bench-data/locomo/locomo_dev.json"

# Three paragraphs, three chunks: people, companies, places and dates.
PARAGRAPHS = (
    "Dr. Ada Lovelace worked with Charles Babbage in London. In 1843, Lovelace published "
    "her notes on the Analytical Engine. Ada Lovelace was born in London and married "
    "William King in 1835.",
    "Lovelace's notes describe an algorithm for the engine. Grace Hopper worked for "
    "Remington Rand. Steve Jobs founded Apple Computer Company in 1976. Acme Corp was "
    'founded by John Smith. Melanie moved to Lyon last week. "Charlotte\'s Web" is a book.',
    "Write to ada@example.com or see https://example.org/ada for details. The build failed "
    "with ERR-1234 and E1001, tracked in JIRA-42.",
)
DOC_DATE = datetime(2023, 5, 8, 13, 56)


@pytest.fixture
def extractor() -> RuleBasedExtractor:
    return RuleBasedExtractor()


@pytest.fixture
def doc_chunks() -> list[ChunkInput]:
    return [
        ChunkInput(
            chunk_id=f"doc-{i}", text=text, timestamp=DOC_DATE, dataset_id="history", data_id="doc"
        )
        for i, text in enumerate(PARAGRAPHS)
    ]


@pytest.fixture(scope="session")
def locomo_conversation() -> list[ChunkInput]:
    """The first LoCoMo dev conversation (conv-26), one chunk per turn."""
    if not LOCOMO.exists():
        pytest.skip(f"LoCoMo dev data not found at {LOCOMO} (see shared/bench-data/README.md)")
    sample = json.loads(LOCOMO.read_text())[0]
    conv = sample["conversation"]
    chunks: list[ChunkInput] = []
    n = 1
    while f"session_{n}" in conv:
        stamp = datetime.strptime(conv[f"session_{n}_date_time"], "%I:%M %p on %d %B, %Y")
        for turn in conv[f"session_{n}"]:
            text = turn["text"] + (
                f" [shares {turn['blip_caption']}]" if turn.get("blip_caption") else ""
            )
            chunks.append(
                ChunkInput(
                    chunk_id=turn["dia_id"],
                    text=text,
                    speaker=turn["speaker"],
                    timestamp=stamp,
                    dataset_id=sample["sample_id"],
                    data_id=sample["sample_id"],
                )
            )
        n += 1
    return chunks
