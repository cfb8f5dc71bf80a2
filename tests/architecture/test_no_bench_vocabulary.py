"""No library file carries a list of names or titles taken from the benchmark data.

A few speaker names or passage titles in one file mean someone tuned the library to
``shared/bench-data``; a general method must not need them.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import regex

ROOT = Path(__file__).resolve().parents[2]
BENCH = ROOT.parent / "shared" / "bench-data"
LIBRARY_DIRS = ("recall_engine", "retrievers", "router", "prompts")
MAX_SPEAKERS = 2  # three speaker names in one file are a list
MAX_TITLES = 1  # two multi-word titles in one file are a list


def speaker_names(locomo: list[dict]) -> set[str]:
    out = set()
    for sample in locomo:
        conv = sample["conversation"]
        out |= {conv["speaker_a"].casefold(), conv["speaker_b"].casefold()}
    return out


def multiword_titles(corpus: dict[str, list[str]]) -> set[str]:
    return {t.casefold() for t in corpus if len(t.split()) >= 2}


def _words(text: str) -> set[str]:
    return set(regex.findall(r"\p{L}+", text.casefold()))


def offences(text: str, speakers: set[str], titles: set[str]) -> list[str]:
    """What in ``text`` looks like a list of benchmark vocabulary (empty if clean)."""
    found = []
    named = sorted(speakers & _words(text))
    if len(named) > MAX_SPEAKERS:
        found.append(f"speaker names {named}")
    lowered = text.casefold()
    quoted = sorted(t for t in titles if t in lowered)
    if len(quoted) > MAX_TITLES:
        found.append(f"titles {quoted[:5]}")
    return found


def test_the_check_fails_on_a_list_of_names_and_titles() -> None:
    speakers = {"ann", "bo", "cy", "dee"}
    titles = {"the river song", "blue hill farm", "x"}
    assert offences("NAMES = 'ann bo cy'", speakers, titles)
    assert offences("# The River Song and Blue Hill Farm", speakers, titles)
    assert not offences("ann met bo; see The River Song", speakers, titles)


def _library_files() -> list[Path]:
    files: list[Path] = []
    for d in LIBRARY_DIRS:
        files += [p for p in (ROOT / d).rglob("*") if p.suffix in {".py", ".txt", ".json", ".toml"}]
    return files


def test_library_holds_no_benchmark_vocabulary() -> None:
    locomo_file = BENCH / "locomo" / "locomo_dev.json"
    corpus_file = BENCH / "hotpotqa" / "hotpotqa_100_corpus.json"
    if not (locomo_file.exists() and corpus_file.exists()):
        pytest.skip(f"benchmark data not found under {BENCH}")
    speakers = speaker_names(json.loads(locomo_file.read_text()))
    titles = multiword_titles(json.loads(corpus_file.read_text()))
    bad = {}
    for path in _library_files():
        found = offences(path.read_text(errors="replace"), speakers, titles)
        if found:
            bad[str(path.relative_to(ROOT))] = found
    assert not bad, f"benchmark vocabulary in library files: {bad}"
