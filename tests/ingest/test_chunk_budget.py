"""No text escapes the chunk budget, whatever its script (issue 10)."""

import base64
import json
import random

import pytest

from recall_engine.core.models import Message
from recall_engine.ingest.chunking import (
    MAX_CHARS_PER_TOKEN,
    chunk_text,
    count_tokens,
    message_chunks,
)

BUDGET = 200


def _check(chunks: list[str], source: str) -> None:
    assert len(chunks) > 1
    assert all(count_tokens(c) <= BUDGET for c in chunks)
    assert all(len(c) <= BUDGET * MAX_CHARS_PER_TOKEN for c in chunks)
    # Nothing is lost: every character of the source is in some chunk, in order.
    assert "".join("".join(c.split()) for c in chunks) == "".join(source.split())


def _chinese(n: int) -> str:
    rng = random.Random(1)
    return "".join(chr(rng.randrange(0x4E00, 0x9FA5)) for _ in range(n))


def _japanese(n: int) -> str:
    rng = random.Random(2)
    pool = [chr(c) for c in range(0x3041, 0x3097)] + [chr(c) for c in range(0x30A1, 0x30FB)]
    return "".join(rng.choice(pool) for _ in range(n))


@pytest.mark.parametrize(
    "text",
    [
        pytest.param(_chinese(46_000), id="46k-chinese"),
        pytest.param(_japanese(40_000), id="40k-japanese"),
        pytest.param(base64.b64encode(random.Random(3).randbytes(300_000)).decode(), id="base64"),
        pytest.param(
            json.dumps(
                [{"id": i, "name": f"item{i}", "tags": ["a", "b"]} for i in range(6000)]
            ).replace(" ", ""),
            id="minified-json",
        ),
    ],
)
def test_text_without_spaces_is_cut_within_budget(text):
    _check(chunk_text(text, chunk_size=BUDGET, chunk_overlap=30), text)


def test_a_5_mb_one_letter_word_yields_chunks_within_budget():
    text = "a" * 5_000_000
    chunks = chunk_text(text, chunk_size=BUDGET, chunk_overlap=30)
    assert all(len(c) <= BUDGET * MAX_CHARS_PER_TOKEN for c in chunks)
    assert all(count_tokens(c) <= BUDGET for c in chunks)
    assert sum(len(c) for c in chunks) == len(text)


def test_cjk_sentences_end_at_full_stops():
    text = "爱因斯坦出生于乌尔姆。他后来搬到了慕尼黑！" * 30
    chunks = chunk_text(text, chunk_size=50, chunk_overlap=0)
    assert all(c.endswith(("。", "！")) for c in chunks)
    assert all(count_tokens(c) <= 50 for c in chunks)


def test_english_chunking_is_unchanged_for_ordinary_words():
    sentence = "Einstein was born in Ulm and later moved to Munich with his family."
    assert count_tokens(sentence) == 14
    assert chunk_text(sentence, chunk_size=BUDGET, chunk_overlap=30) == [sentence]


def test_a_long_message_becomes_several_chunks_of_the_same_turn():
    message = Message(id="D1:1", speaker="Ann", text="x" * 100_000)
    drafts = message_chunks(message, chunk_size=BUDGET)
    assert len(drafts) > 1
    assert all(d.message_ids == ("D1:1",) for d in drafts)
    assert all(count_tokens(d.text) <= BUDGET for d in drafts)
    assert "".join(d.extract_text or "" for d in drafts) == message.text


async def test_remember_of_a_5_mb_word_recalls_bounded_chunks(engine):
    from recall_engine import SearchType

    await engine.remember("b" * 5_000_000 + " marker", dataset_name="big")
    results = await engine.recall("marker", SearchType.CHUNKS_LEXICAL, only_context=True)
    assert results
    assert all(len(r.text) <= BUDGET * MAX_CHARS_PER_TOKEN for r in results)
