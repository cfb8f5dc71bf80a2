"""The offline answer to an aggregation question, computed from BROAD's records.

No sentence of the context says "three pets": the answer is counted, summed or
listed from every record (``core.records``), exactly, and each item it counts or
lists is given with the sentence and chunk that state it (``Answer.evidence``).
Items a later statement ended are left out of a question about now ("How many
pets does Ann have now?") and named as ended.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from recall_engine.core.records import Ask, Record, RecordSet
from recall_engine.llm.completion import Answer, AnswerSentence
from recall_engine.llm.usage import LLMUsage


def _join(items: Sequence[str]) -> str:
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def _plural(kind: str, n: int) -> str:
    if not kind or n == 1:
        return kind
    if kind.endswith("y") and kind[-2:-1] not in "aeiou":
        return kind[:-1] + "ies"
    if kind.endswith(("s", "x", "ch", "sh")):
        return kind + "es"
    return kind + "s"


def _number(value: float) -> str:
    return f"{value:g}" if value != int(value) else str(int(value))


def answer_value(records: RecordSet) -> Any:
    """The answer as a value: a count (int), a total (float), the items (list), the most
    stated item (str, or None without records)."""
    counted = records.counted()
    if records.ask in (Ask.COUNT, Ask.TIMES):
        return len(counted)
    if records.ask is Ask.TOTAL:
        return sum(r.amount or 0.0 for r in counted)
    if records.ask is Ask.MOST:
        best = max(counted, key=lambda r: r.mentions, default=None)
        return best.item if best is not None else None
    return [r.item for r in counted]


def answer_text(records: RecordSet) -> str:
    """The answer in words: the number or the list first, then what it rests on."""
    counted = records.counted()
    value = answer_value(records)
    who = f" of {_join(list(records.subjects))}" if records.subjects else ""
    ended = [r for r in records.records if not r.current]
    if records.ask is Ask.TIMES:
        days = [(r.time or "undated")[:10] for r in counted]
        text = f"{value} times" + (f" ({_join(days)})." if days else ".")
    elif records.ask is Ask.TOTAL:
        unit = counted[0].unit if counted else records.kind
        parts = [f"{_number(r.amount or 0)} {r.unit}" for r in counted]
        text = f"{_number(value)} {unit} in total" + (f" ({' + '.join(parts)})." if parts else ".")
    elif records.ask is Ask.MOST:
        if value is None:
            return f"No {records.kind}{who} is stated."
        best = next(r for r in counted if r.item == value)
        text = f"{value} (stated {best.mentions} times)."
    elif not counted:
        return f"No {records.kind or 'item'}{who} is stated."
    elif records.ask is Ask.COUNT:
        noun = _plural(records.kind, len(counted))
        text = f"{len(counted)} {noun}: {_join([r.item for r in counted])}."
    else:
        text = _join([r.item for r in counted]) + "."
    if ended and records.ask in (Ask.COUNT, Ask.LIST):
        note = "no longer" if records.current_only else "since ended"
        text += f" ({note}: {_join([r.item for r in ended])})"
    return text


def records_answer(records: RecordSet) -> Answer:
    """The extractive ``Answer`` of ``records``: the computed text, every counted record's
    sentence as evidence, their chunks as sources."""
    used = records.counted()
    return Answer(
        text=answer_text(records),
        answer_mode="extractive",
        usage=LLMUsage().as_dict(),
        sources=list({r.source.chunk_id: r.source for r in used}.values()),
        answer_type=records.ask.value,
        evidence=[_evidence(r) for r in used],
    )


def _evidence(record: Record) -> AnswerSentence:
    return AnswerSentence(
        text=record.sentence,
        role="answer",
        data_id=record.source.data_id,
        chunk_id=record.source.chunk_id,
        dataset_id=record.source.dataset_id,
        dataset_name=record.source.dataset_name,
        span=record.item,
    )
