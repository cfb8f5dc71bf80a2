"""The plain dense baseline that ``CHUNKS`` is held against: the packaged MiniLM
over whole units, one vector each, exact cosine similarity, no engine.

Units are those of ``bench.locomo`` (a dialogue turn, asked within its own
conversation) and ``bench.hotpotqa`` (a whole paragraph, chunked by nothing, so
a long one is cut at the model's window). Each is embedded twice: its text
alone, and with its label in front (``speaker: text``, ``title: text``), the
two choices a chunk's representation has to make between.

    .venv/bin/python -m bench.plain_dense [--json FILE]

Compare with ``CHUNKS`` of ``bench.locomo`` and ``bench.hotpotqa`` (same units,
same metrics) on the same machine.
"""

from __future__ import annotations

import argparse
import json
import statistics
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from bench import hotpotqa
from bench._data import load_hotpotqa, load_locomo, mean_scores, score
from recall_engine.config import RecallConfig
from recall_engine.embedding import Embedder, make_embedder

FORMS = ("text", "label: text")


def unit_vectors(embedder: Embedder, texts: Sequence[str]) -> np.ndarray:
    vectors = np.asarray(embedder.embed(list(texts)), dtype=np.float32)
    return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


def ranked(units: np.ndarray, query: np.ndarray, ids: Sequence[str], k: int) -> list[str]:
    return [ids[i] for i in np.argsort(-(units @ query))[:k]]


def locomo(embedder: Embedder, form: str) -> dict[str, dict[str, float]]:
    rows: dict[str, list[dict[str, float]]] = {"cat1-4": [], "cat1": [], "cat5": []}
    for sample in load_locomo():
        messages = sample.conversation.messages
        ids = [str(m.id) for m in messages]
        texts = [m.text if form == "text" else f"{m.speaker}: {m.text}" for m in messages]
        units = unit_vectors(embedder, texts)
        questions = unit_vectors(embedder, [q.text for q in sample.questions])
        for q, vector in zip(sample.questions, questions, strict=True):
            top = ranked(units, vector, ids, 25)
            row = score(q.gold, top, top)
            rows["cat5" if q.category == 5 else "cat1-4"].append(row)
            if q.category == 1:
                rows["cat1"].append(row)
    return {name: mean_scores(values) for name, values in rows.items()}


def hotpot(embedder: Embedder, form: str) -> dict[str, float]:
    docs, questions = load_hotpotqa()
    titles = [str(d.title) for d in docs]
    texts = [d.text if form == "text" else f"{d.title}: {d.text}" for d in docs]
    units = unit_vectors(embedder, texts)
    vectors = unit_vectors(embedder, [q.text for q in questions])
    rows = []
    for q, vector in zip(questions, vectors, strict=True):
        top = ranked(units, vector, titles, 10)
        rows.append(hotpotqa.score(q.gold, top, top))
    return {k: 100 * statistics.fmean(r[k] for r in rows) for k in rows[0]}


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--json", type=Path, default=None, help="also write the report here")
    args = parser.parse_args()
    embedder = make_embedder(RecallConfig())
    conversations = {form: locomo(embedder, form) for form in FORMS}
    passages = {form: hotpot(embedder, form) for form in FORMS}
    print(
        f"{'plain MiniLM over':<20}{'LoCoMo r@10':>12}{'cat1 full@10':>14}{'cat5 r@10':>11}"
        f"{'Hotpot R@2':>12}{'R@5':>7}{'full@5':>8}{'MRR@10':>8}"
    )
    for form in FORMS:
        lo, hp = conversations[form], passages[form]
        print(
            f"{form:<20}{lo['cat1-4']['recall@10']:>12.1f}{lo['cat1']['full@10']:>14.1f}"
            f"{lo['cat5']['recall@10']:>11.1f}{hp['R@2']:>12.1f}{hp['R@5']:>7.1f}"
            f"{hp['full@5']:>8.1f}{hp['MRR@10']:>8.1f}"
        )
    if args.json:
        report = {"locomo": conversations, "hotpotqa": passages}
        args.json.write_text(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
