"""Session cache: does a cached answer come back only for the question it answered?

Each LoCoMo dev conversation is its own dataset and has one session. Its
questions are asked in sequence in that session (routed, offline, so each
extractive answer is cached), then three passes follow:

- distinct: the first pass itself. Every question differs from those before it
  (questions equal after lowercasing and trimming are asked once), so any cache
  hit is a false hit: another question's answer.
- repeat: each question again, verbatim; it must hit its own entry.
- reworded: each question lightly reworded by general rules (``rewordings``: case
  and punctuation, "What is" <-> "What's", "please", "Can you tell me", a
  trailing time or place clause moved to the front, and all of those at once);
  each rewording must hit the question's own entry.

A hit counts only when the entry returned is the question's own. The report
also shows what an embedding rule would have done on the same questions
(cosine of the query vectors, with the same names and numbers required).

    .venv/bin/python -m bench.session_cache [--limit N] [--store DIR] [--json FILE]
        [--graph-extractor rules|llm|none]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from bench._data import load_locomo, percentile
from bench.locomo import ingest
from recall_engine import RecallEngine, ResponseQAEntry

_WH_IS = re.compile(r"^(What|Where|Who|How|When|Why)\s+is\b", re.IGNORECASE)
_WH_S = re.compile(r"^(What|Where|Who|How|When|Why)'s\b", re.IGNORECASE)
# A trailing clause that can open the sentence instead: a time or place phrase.
_TRAILING = re.compile(
    r"^(?P<main>.+?\w)\s+(?P<clause>(?:in|on|at|during|after|before|since|last|this|from)"
    r"\s+[^,?!]{2,40}?)\s*(?P<end>[?.!]*)$"
)
_NAMES = re.compile(r"\b[A-Z][\w'-]*|\d+")


def _lower_first(text: str) -> str:
    return text if re.match(r"I\b", text) else text[:1].lower() + text[1:]


def _case_and_punctuation(q: str) -> str | None:
    return q.lower().rstrip("?!. ")


def _contraction(q: str) -> str | None:
    if _WH_S.search(q):
        return _WH_S.sub(lambda m: f"{m.group(1)} is", q, count=1)
    if _WH_IS.search(q):
        return _WH_IS.sub(lambda m: f"{m.group(1)}'s", q, count=1)
    return None


def _please(q: str) -> str | None:
    body = q.rstrip("?!. ")
    return f"{body}, please?"


def _tell_me(q: str) -> str | None:
    return f"Can you tell me {_lower_first(q)}"


def _front_clause(q: str) -> str | None:
    match = _TRAILING.match(q.strip())
    if match is None:
        return None
    clause, main = match.group("clause"), match.group("main")
    return f"{clause[:1].upper()}{clause[1:]}, {_lower_first(main)}{match.group('end') or '?'}"


RULES: dict[str, Callable[[str], str | None]] = {
    "case_punctuation": _case_and_punctuation,
    "contraction": _contraction,
    "please": _please,
    "can_you_tell_me": _tell_me,
    "clause_to_front": _front_clause,
}


def rewordings(question: str) -> list[tuple[str, str]]:
    """Light rewordings of ``question``: one per rule that changes it, and one with
    every such rule applied in turn ("combined"), as (rule name, text)."""
    out = []
    combined = question
    for name, rule in RULES.items():
        variant = rule(question)
        if variant is not None and variant != question:
            out.append((name, variant))
            combined = rule(combined) or combined
    if len(out) > 1:
        out.append(("combined", combined))
    return out


def _distinct(questions: list[str]) -> list[str]:
    seen: dict[str, str] = {}
    for q in questions:
        seen.setdefault(" ".join(q.lower().split()).rstrip("?!. "), q)
    return list(seen.values())


def _own_hit(results: list, question: str) -> tuple[bool, bool]:
    """(any cache hit, the hit is this question's own entry)."""
    cached = [r for r in results if isinstance(r, ResponseQAEntry)]
    return bool(cached), any(r.question == question for r in cached)


async def _ask(engine: RecallEngine, query: str, session: str, times: list[float]) -> list:
    t0 = time.perf_counter()
    results = await engine.recall(query, session_id=session)
    times.append(time.perf_counter() - t0)
    return results


async def run(limit: int | None, data_dir: Path, graph_extractor: str) -> dict:
    samples = load_locomo()[: limit or None]
    engine = RecallEngine(data_dir, graph_extractor=graph_extractor)
    engine.embedder.embed(["warm up"])
    report: dict = {"conversations": len(samples), "extractor": graph_extractor}
    await ingest(engine, samples, report)
    counts = dict.fromkeys(
        ("distinct", "false_hits", "cached", "repeat_hits", "reworded", "reworded_hits"), 0
    )
    by_rule: dict[str, list[int]] = {}
    false_examples: list[dict] = []
    missed: list[dict] = []
    hit_ms: list[float] = []
    miss_ms: list[float] = []
    pairs: list[tuple[str, list[str], list[tuple[str, str]]]] = []
    for sample in samples:
        session = f"bench-{sample.sample_id}-{time.time_ns()}"
        questions = _distinct([q.text for q in sample.questions])
        cached: list[str] = []
        for q in questions:
            results = await _ask(engine, q, session, miss_ms)
            counts["distinct"] += 1
            hit, _ = _own_hit(results, q)
            if hit:
                counts["false_hits"] += 1
                other = next(r for r in results if isinstance(r, ResponseQAEntry))
                false_examples.append({"asked": q, "got_entry_of": other.question})
            elif any(r.metadata.get("qa_id") for r in results):
                cached.append(q)
        variants = []
        for q in cached:
            counts["cached"] += 1
            _, own = _own_hit(await _ask(engine, q, session, hit_ms), q)
            counts["repeat_hits"] += own
            for rule, variant in rewordings(q):
                counts["reworded"] += 1
                _, own = _own_hit(await _ask(engine, variant, session, hit_ms), q)
                counts["reworded_hits"] += own
                by_rule.setdefault(rule, [0, 0])[0] += own
                by_rule[rule][1] += 1
                variants.append((q, variant))
                if not own:
                    missed.append({"question": q, "reworded": variant, "rule": rule})
        pairs.append((sample.sample_id, questions, variants))
    report["cache"] = {
        **counts,
        "false_hit_rate": counts["false_hits"] / max(counts["distinct"], 1),
        "repeat_hit_rate": counts["repeat_hits"] / max(counts["cached"], 1),
        "reworded_hit_rate": counts["reworded_hits"] / max(counts["reworded"], 1),
        "reworded_by_rule": {k: {"hits": h, "asked": n} for k, (h, n) in by_rule.items()},
        "false_hit_examples": false_examples[:10],
        "missed_rewordings": missed[:10],
        "recall_ms_p50_first_ask": 1000 * percentile(miss_ms, 0.5),
        "recall_ms_p50_cache_hit_pass": 1000 * percentile(hit_ms, 0.5),
    }
    report["embedding_rule"] = _embedding_rule(engine, pairs)
    engine.close()
    return report


def _names(text: str) -> frozenset[str]:
    return frozenset(m.lower() for m in _NAMES.findall(text))


def _embedding_rule(engine: RecallEngine, pairs: list) -> dict:
    """What "cosine >= t and the same names/numbers" would hit: among distinct
    questions of one conversation (false hits) and question/rewording pairs."""
    thresholds = (0.85, 0.9, 0.95, 0.98)
    false_hits = dict.fromkeys(thresholds, 0)
    reworded_hits = dict.fromkeys(thresholds, 0)
    n_pairs = n_reworded = 0
    for _, questions, variants in pairs:
        vectors = np.asarray(engine.embedder.embed(questions), dtype=np.float32)
        sims = vectors @ vectors.T
        names = [_names(q) for q in questions]
        for i in range(len(questions)):
            for j in range(i + 1, len(questions)):
                n_pairs += 1
                if names[i] != names[j]:
                    continue
                for t in thresholds:
                    false_hits[t] += bool(sims[i, j] >= t)
        if variants:
            a = np.asarray(engine.embedder.embed([q for q, _ in variants]), dtype=np.float32)
            b = np.asarray(engine.embedder.embed([v for _, v in variants]), dtype=np.float32)
            for (q, v), sim in zip(variants, (a * b).sum(axis=1), strict=True):
                n_reworded += 1
                same = _names(q) == _names(v) or _names(q.lower()) == _names(v.lower())
                for t in thresholds:
                    reworded_hits[t] += bool(same and sim >= t)
    return {
        "distinct_pairs": n_pairs,
        "reworded_pairs": n_reworded,
        "by_threshold": {
            str(t): {
                "false_hit_pairs": false_hits[t],
                "reworded_hit_rate": reworded_hits[t] / max(n_reworded, 1),
            }
            for t in thresholds
        },
    }


def print_report(report: dict) -> None:
    c = report["cache"]
    print(f"LoCoMo dev: {report['conversations']} conversations, one session each")
    print(
        f"distinct questions: {c['distinct']}, false hits: {c['false_hits']} "
        f"({100 * c['false_hit_rate']:.1f}%)"
    )
    print(
        f"cached: {c['cached']}; repeat hits {100 * c['repeat_hit_rate']:.1f}%, "
        f"rewordings {c['reworded']}, hits {100 * c['reworded_hit_rate']:.1f}%"
    )
    for rule, body in c["reworded_by_rule"].items():
        print(f"  {rule:<18} {body['hits']}/{body['asked']}")
    for example in c["false_hit_examples"]:
        print(f"  false hit: {example['asked']!r} -> {example['got_entry_of']!r}")
    for example in c["missed_rewordings"]:
        print(f"  missed: {example['reworded']!r} ({example['rule']})")
    print(
        f"recall p50: first ask {c['recall_ms_p50_first_ask']:.1f} ms, "
        f"repeat/reworded passes {c['recall_ms_p50_cache_hit_pass']:.1f} ms"
    )
    e = report["embedding_rule"]
    print(
        f"embedding rule (cosine >= t, same names/numbers): {e['distinct_pairs']} distinct "
        f"pairs, {e['reworded_pairs']} rewordings"
    )
    for t, body in e["by_threshold"].items():
        print(
            f"  t={t}: false-hit pairs {body['false_hit_pairs']}, "
            f"reworded hits {100 * body['reworded_hit_rate']:.1f}%"
        )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--limit", type=int, default=None, help="only the first N conversations")
    parser.add_argument("--json", type=Path, default=None, help="also write the report here")
    parser.add_argument("--store", type=Path, default=None, help="keep/reuse the store here")
    parser.add_argument("--graph-extractor", choices=["rules", "llm", "none"], default="rules")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        report = asyncio.run(run(args.limit, args.store or Path(tmp), args.graph_extractor))
    print_report(report)
    if args.json:
        args.json.write_text(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
