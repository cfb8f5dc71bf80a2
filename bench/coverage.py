"""Coverage as a "not found" signal: LoCoMo dev questions against their own
conversation (answerable) and against another conversation's dataset (unanswerable).

Each question of categories 1-4 is asked routed, offline, once with
``datasets=[its own conversation]`` and once with ``datasets=[the next
conversation]`` (sample i asks sample i+1, cyclically). Reported: the AUROC of
``metadata["coverage"]`` for telling the two apart (an empty result counts as
coverage 0), the share of each side flagged ``coverage_low`` (the answers that
abstain), and the coverage quartiles of each side.

    .venv/bin/python -m bench.coverage [--limit N] [--store DIR] [--json FILE]
"""

from __future__ import annotations

import statistics
from pathlib import Path

from bench._cli import quality_main
from bench._data import load_locomo, percentile
from bench.answers import ingest
from recall_engine import RecallEngine, SearchType

TOP_K = 15


def auroc(positives: list[float], negatives: list[float]) -> float:
    """P(a random positive scores above a random negative), ties counting half."""
    if not positives or not negatives:
        return float("nan")
    ranked = sorted([(v, 1) for v in positives] + [(v, 0) for v in negatives])
    rank_sum, i = 0.0, 0
    while i < len(ranked):
        j = i
        while j < len(ranked) and ranked[j][0] == ranked[i][0]:
            j += 1
        mid = (i + j + 1) / 2  # average 1-based rank of the tied block
        rank_sum += mid * sum(1 for _, label in ranked[i:j] if label)
        i = j
    n_pos, n_neg = len(positives), len(negatives)
    return (rank_sum - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg)


def default_modes() -> list[SearchType]:
    return []


async def coverage_of(engine: RecallEngine, question: str, dataset: str) -> tuple[float, bool]:
    results = await engine.recall(question, datasets=[dataset], top_k=TOP_K)
    if not results:
        return 0.0, True
    meta = results[0].metadata
    return float(meta.get("coverage", 0.0)), bool(meta.get("coverage_low", False))


async def run(
    modes: list[SearchType], limit: int | None, data_dir: Path, graph_extractor: str = "rules"
) -> dict:
    samples = load_locomo()[: limit or None]
    if len(samples) < 2:
        raise SystemExit("the swap needs at least two conversations (--limit 2 or more)")
    engine = RecallEngine(data_dir, graph_extractor=graph_extractor)
    await ingest(engine, samples)
    own: list[tuple[float, bool]] = []
    other: list[tuple[float, bool]] = []
    for i, sample in enumerate(samples):
        swap = samples[(i + 1) % len(samples)].sample_id
        for q in sample.questions:
            if q.category not in (1, 2, 3, 4):
                continue
            own.append(await coverage_of(engine, q.text, sample.sample_id))
            other.append(await coverage_of(engine, q.text, swap))
    engine.close()

    def side(values: list[tuple[float, bool]]) -> dict:
        scores = [v for v, _ in values]
        return {
            "questions": len(values),
            "abstain_pct": 100 * sum(low for _, low in values) / len(values),
            "coverage_p25": percentile(scores, 0.25),
            "coverage_median": statistics.median(scores),
            "coverage_p75": percentile(scores, 0.75),
        }

    return {
        "conversations": len(samples),
        "auroc": auroc([v for v, _ in own], [v for v, _ in other]),
        "answerable": side(own),
        "unanswerable": side(other),
    }


def print_report(report: dict) -> None:
    print(
        f"LoCoMo dev coverage swap ({report['conversations']} conversations, routed, offline): "
        f"AUROC {report['auroc']:.3f}"
    )
    for name in ("answerable", "unanswerable"):
        s = report[name]
        print(
            f"  {name:<13} {s['questions']} questions, abstains on {s['abstain_pct']:.1f}%, "
            f"coverage p25/median/p75 {s['coverage_p25']:.2f} / {s['coverage_median']:.2f} / "
            f"{s['coverage_p75']:.2f}"
        )


def main() -> None:
    quality_main(
        __doc__, run, print_report, default_modes, limit_help="only the first N conversations"
    )


if __name__ == "__main__":
    main()
