"""LoCoMo dev answer quality offline: token F1 of the routed extractive answer
against the gold answers, per category, beside a baseline measured in the same run.

Each conversation is its own dataset; each question (categories 1-4) is asked
against its own conversation with no ``query_type`` (routed) and no LLM. The
score is SQuAD's token F1 (lowercase, punctuation and the articles a/an/the
removed, whitespace tokens). Rows:

- ``routed``: ``results[0].text`` (an abstained answer counts as empty);
- ``routed, sentences``: the same answer's evidence sentences instead of its
  typed span (what a sentence-only answer would score);
- ``baseline``: the top-1 ``CHUNKS_LEXICAL`` turn's text (the message itself,
  without the ``[time] speaker:`` header).

    .venv/bin/python -m bench.answers [--limit N] [--store DIR] [--json FILE]
        [--modes GRAPH_COMPLETION,...]

``--modes`` adds rows for pinned search types beside the routed one.
"""

from __future__ import annotations

import re
import statistics
import string
from collections import Counter
from pathlib import Path

from bench._cli import quality_main
from bench._data import CATEGORY_NAMES, load_locomo
from recall_engine import RecallEngine, SearchType

TOP_K = 15
_ARTICLES = re.compile(r"\b(a|an|the)\b")
_HEADER = re.compile(r"^\[[^\]]*\]\s*[^:]{1,60}:\s*")


def normalize_answer(text: str) -> str:
    """SQuAD's normalisation: lowercase, no punctuation, no articles, single spaces."""
    text = text.lower()
    text = "".join(ch for ch in text if ch not in set(string.punctuation))
    return " ".join(_ARTICLES.sub(" ", text).split())


def token_f1(prediction: str, gold: str) -> float:
    """SQuAD token F1 between two answers."""
    pred, ref = normalize_answer(prediction).split(), normalize_answer(gold).split()
    if not pred or not ref:
        return float(pred == ref)
    common = sum((Counter(pred) & Counter(ref)).values())
    if not common:
        return 0.0
    precision, recall = common / len(pred), common / len(ref)
    return 2 * precision * recall / (precision + recall)


def default_modes() -> list[SearchType]:
    return []


async def ingest(engine: RecallEngine, samples: list) -> None:
    known = await engine.list_datasets()
    for sample in samples:
        if sample.sample_id not in known:
            await engine.remember(sample.conversation, dataset_name=sample.sample_id)


def answer_of(results: list) -> tuple[str, str]:
    """(answer text, its evidence sentences) of a routed answer; abstained: empty."""
    if not results:
        return "", ""
    top = results[0]
    if top.metadata.get("abstained"):
        return "", ""
    evidence = top.metadata.get("answer_evidence") or []
    return top.text, " ".join(e["text"] for e in evidence) or top.text


def questions(samples: list) -> list[tuple[object, object]]:
    return [(s, q) for s in samples for q in s.questions if q.category in (1, 2, 3, 4) and q.answer]


def summarise(rows: dict[str, dict[int, list[float]]]) -> dict:
    out: dict = {}
    for name, per_cat in rows.items():
        flat = [v for values in per_cat.values() for v in values]
        out[name] = {"cat1-4": 100 * statistics.fmean(flat) if flat else 0.0}
        for cat in sorted(per_cat):
            out[name][f"cat{cat} {CATEGORY_NAMES[cat]}"] = 100 * statistics.fmean(per_cat[cat])
    return out


async def run(
    modes: list[SearchType], limit: int | None, data_dir: Path, graph_extractor: str = "rules"
) -> dict:
    samples = load_locomo()[: limit or None]
    engine = RecallEngine(data_dir, graph_extractor=graph_extractor)
    await ingest(engine, samples)
    names = ["routed", "routed, sentences", "baseline top-1 CHUNKS_LEXICAL"]
    names += [m.value for m in modes]
    rows: dict[str, dict[int, list[float]]] = {n: {} for n in names}
    abstained = 0
    asked = questions(samples)
    for sample, q in asked:
        ds = [sample.sample_id]  # type: ignore[attr-defined]
        gold = q.answer  # type: ignore[attr-defined]
        cat = q.category  # type: ignore[attr-defined]
        routed = await engine.recall(q.text, datasets=ds, top_k=TOP_K)  # type: ignore[attr-defined]
        text, sentences = answer_of(routed)
        abstained += bool(routed) and bool(routed[0].metadata.get("abstained"))
        lexical = await engine.recall(q.text, SearchType.CHUNKS_LEXICAL, datasets=ds, top_k=1)  # type: ignore[attr-defined]
        baseline = _HEADER.sub("", lexical[0].text, count=1) if lexical else ""
        scores = [token_f1(text, gold), token_f1(sentences, gold), token_f1(baseline, gold)]
        for mode in modes:
            pinned = await engine.recall(q.text, mode, datasets=ds, top_k=TOP_K)  # type: ignore[attr-defined]
            scores.append(token_f1(answer_of(pinned)[0], gold))
        for name, value in zip(names, scores, strict=True):
            rows[name].setdefault(cat, []).append(value)
    engine.close()
    return {
        "conversations": len(samples),
        "questions": len(asked),
        "abstained_routed": abstained,
        "f1": summarise(rows),
    }


def print_report(report: dict) -> None:
    print(
        f"LoCoMo dev answers (offline, token F1 x100): {report['conversations']} conversations, "
        f"{report['questions']} questions in categories 1-4; routed answers abstained on "
        f"{report['abstained_routed']}"
    )
    slices = list(next(iter(report["f1"].values())))
    print(f"{'answer':<32}" + "".join(f"{s:>16}" for s in slices))
    for name, values in report["f1"].items():
        print(f"{name:<32}" + "".join(f"{values.get(s, 0.0):>16.1f}" for s in slices))


def main() -> None:
    quality_main(
        __doc__, run, print_report, default_modes, limit_help="only the first N conversations"
    )


if __name__ == "__main__":
    main()
