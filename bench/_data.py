"""Loaders for the shared benchmark data and the retrieval metrics of its README."""

from __future__ import annotations

import hashlib
import json
import re
import statistics
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from recall_engine import Conversation, Document, Message

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
BUDGET_TOKENS = 2000
"""The context budget of the README's budget recall (whitespace tokens)."""
_EVIDENCE = re.compile(r"D:?(\d+):0*(\d+)")


@dataclass
class Question:
    text: str
    category: int
    gold: list[str]
    answer: str | None = None
    """The gold answer text (categories 1-4; category 5 has an adversarial answer)."""


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
                answer = qa.get("answer")
                questions.append(
                    Question(
                        qa["question"],
                        int(qa["category"]),
                        gold,
                        None if answer is None else str(answer),
                    )
                )
        samples.append(
            Sample(
                raw["sample_id"], Conversation(messages=messages, title=raw["sample_id"]), questions
            )
        )
    return samples


@dataclass
class HotpotQuestion:
    text: str
    gold: list[str]
    level: str = ""


def load_hotpotqa(folder: Path = HOTPOT) -> tuple[list[Document], list[HotpotQuestion]]:
    """HotpotQA-100: each paragraph one Document titled with its title, and the
    questions with their gold titles (the supporting facts' titles)."""
    corpus = json.loads((folder / "hotpotqa_100_corpus.json").read_text(encoding="utf-8"))
    docs = [
        Document(text="".join(sentences).strip(), title=title)
        for title, sentences in corpus.items()
        if "".join(sentences).strip()
    ]
    questions = []
    for raw in json.loads((folder / "hotpotqa_100.json").read_text(encoding="utf-8")):
        gold = list(dict.fromkeys(title for title, _ in raw["supporting_facts"]))
        questions.append(HotpotQuestion(raw["question"], gold, raw.get("level", "")))
    return docs, questions


_CAPITALISED = re.compile(r"\b[A-Z][\w'-]*")
_SYLLABLES = ("ba", "de", "ki", "lo", "mu", "na", "re", "si", "to", "vu", "za", "el", "or")


def _pseudo_name(word: str, copy: int) -> str:
    """A made-up word standing for ``word`` in renamed copy ``copy``: the same
    every time (so a copy's names stay consistent) and about as long."""
    digest = hashlib.sha1(f"{copy}:{word}".encode()).digest()
    parts = [_SYLLABLES[b % len(_SYLLABLES)] for b in digest[: max(2, (len(word) + 1) // 2)]]
    return "".join(parts).capitalize()


def renamed_copies(docs: list[Document], copies: int) -> list[Document]:
    """``docs`` and ``copies - 1`` renamed copies of them: a larger passage corpus
    with as many distinct names per copy as the original and none shared.

    In each copy, every capitalised word that the corpus never writes in lower
    case (a name, not a sentence's first "The") is replaced by a made-up word,
    consistently across the copy, titles included (a title that would
    repeat another gets a number, so every title names one paragraph). The copies keep the text's
    shape (sentence lengths, how often names repeat, how paragraphs link), so the
    entity graph grows with them as it would with more paragraphs of the same kind;
    no question's gold is in a copy.
    """
    lower = {w for d in docs for w in re.findall(r"\b[a-z][\w'-]*", d.text)}

    def rename(text: str, copy: int) -> str:
        return _CAPITALISED.sub(
            lambda m: m[0] if m[0].lower() in lower else _pseudo_name(m[0], copy), text
        )

    out = list(docs)
    titles = {d.title for d in docs}
    for copy in range(1, copies):
        for i, d in enumerate(docs):
            title = rename(d.title or "", copy)
            if title in titles:  # common words only, or two names made alike
                title = f"{title} ({copy + 1}.{i})"
            titles.add(title)
            out.append(Document(text=rename(d.text, copy), title=title))
    return out


def ranked_units(results: list, unit_of: Callable[[dict], list[str]]) -> list[str]:
    """The units behind results (their ``metadata["sources"]``), in rank order, once each."""
    out: dict[str, None] = {}
    for result in results:
        for source in result.metadata.get("sources", []):
            out.update(dict.fromkeys(unit_of(source)))
    return list(out)


def cut_to_budget(
    ranked: list[str], cost: Callable[[str], int], budget: int = BUDGET_TOKENS
) -> list[str]:
    """The ranked units that fit when each costs its source text's tokens: the
    context a caller gets within ``budget`` tokens (larger units cannot buy recall)."""
    out: list[str] = []
    used = 0
    for unit in ranked:
        used += cost(unit)
        if used > budget:
            break
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


# Vocabulary of the synthetic corpora (throughput, embedding, loop-stall benches).
WORDS = [
    "alpha",
    "budget",
    "cloud",
    "data",
    "engine",
    "forest",
    "garden",
    "harbor",
    "island",
    "journal",
    "kernel",
    "ledger",
    "market",
    "network",
    "orbit",
    "planet",
    "quarry",
    "river",
    "signal",
    "tower",
    "union",
    "valley",
    "window",
    "yard",
    "zenith",
    "meeting",
    "project",
    "release",
    "customer",
    "invoice",
    "contract",
    "travel",
    "museum",
    "concert",
    "recipe",
    "garden",
    "hiking",
    "painting",
    "research",
    "lecture",
    "library",
    "migration",
    "outage",
    "database",
    "pipeline",
    "deadline",
    "review",
]
