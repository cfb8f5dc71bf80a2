"""Loaders for the shared benchmark data and the retrieval metrics of its README."""

from __future__ import annotations

import json
import re
import statistics
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from recall_engine import Conversation, Message

SHARED = Path(__file__).resolve().parents[2] / "shared" / "bench-data"
LOCOMO = SHARED / "locomo" / "locomo_dev.json"
HOTPOT = SHARED / "hotpotqa"
CATEGORY_NAMES = {
    1: "multi-hop",
    2: "temporal",
    3: "open-domain",
    4: "single-hop",
    5: "adversarial",
}
_EVIDENCE = re.compile(r"D:?(\d+):0*(\d+)")


@dataclass
class Question:
    text: str
    category: int
    gold: list[str]


@dataclass
class Sample:
    sample_id: str
    conversation: Conversation
    questions: list[Question] = field(default_factory=list)


def _session_time(raw: str) -> datetime:
    return datetime.strptime(raw.strip(), "%I:%M %p on %d %B, %Y")


def normalise_evidence(raw: list[str], valid: set[str]) -> list[str]:
    """Split multi-id strings, repair malformed ids, drop ids not in the conversation."""
    out: list[str] = []
    for entry in raw:
        for part in re.split(r"[;,\s]+", entry):
            match = _EVIDENCE.fullmatch(part.strip())
            if match:
                dia_id = f"D{int(match.group(1))}:{int(match.group(2))}"
                if dia_id in valid and dia_id not in out:
                    out.append(dia_id)
    return out


def load_locomo(path: Path = LOCOMO) -> list[Sample]:
    """LoCoMo samples as conversations (one message per turn) with their questions."""
    samples = []
    for raw in json.loads(path.read_text(encoding="utf-8")):
        conv = raw["conversation"]
        messages = []
        n = 1
        while f"session_{n}" in conv:
            when = _session_time(conv[f"session_{n}_date_time"])
            for turn in conv[f"session_{n}"]:
                text = turn["text"]
                if turn.get("blip_caption"):
                    text += f" [shares {turn['blip_caption']}]"
                messages.append(
                    Message(id=turn["dia_id"], speaker=turn["speaker"], text=text, timestamp=when)
                )
            n += 1
        valid = {m.id for m in messages if m.id}
        questions = []
        for qa in raw["qa"]:
            gold = normalise_evidence(qa.get("evidence", []), valid)
            if gold:
                questions.append(Question(qa["question"], int(qa["category"]), gold))
        samples.append(
            Sample(
                raw["sample_id"], Conversation(messages=messages, title=raw["sample_id"]), questions
            )
        )
    return samples


def units_in_budget(texts_units: list[tuple[str, list[str]]], budget: int = 2000) -> list[str]:
    """Units of results in rank order, cut where the context passes ``budget`` tokens."""
    out: list[str] = []
    used = 0
    for text, units in texts_units:
        used += len(text.split())
        if used > budget:
            break
        for unit in units:
            if unit not in out:
                out.append(unit)
    return out


def score(gold: list[str], ranked: list[str], budget_ranked: list[str]) -> dict[str, float]:
    g = set(gold)

    def rec(k: int) -> float:
        return len(g & set(ranked[:k])) / len(g)

    mrr = next((1.0 / (i + 1) for i, u in enumerate(ranked[:10]) if u in g), 0.0)
    return {
        "recall@5": rec(5),
        "recall@10": rec(10),
        "recall@25": rec(25),
        "full@10": float(g <= set(ranked[:10])),
        "mrr@10": mrr,
        "recall@budget": len(g & set(budget_ranked)) / len(g),
    }


def mean_scores(rows: list[dict[str, float]]) -> dict[str, float]:
    if not rows:
        return {}
    return {k: 100 * statistics.fmean(r[k] for r in rows) for k in rows[0]}


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    index = min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))
    return ordered[index]
