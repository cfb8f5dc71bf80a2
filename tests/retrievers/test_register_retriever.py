"""A search type registered from outside the package runs wherever a built-in does:
recall(query_type=...), router rules, typed options; bad registrations change nothing."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import ClassVar

import pytest

from recall_engine import (
    InvalidInputError,
    RecallEngine,
    SearchType,
    register_retriever,
    unregister_retriever,
)
from recall_engine.core.search_types import search_type_names
from retrievers import REGISTRY, RETRIEVERS
from retrievers.registry import ENTRY_POINT_GROUP, RetrieverRegistry
from router import Router, parse_rules
from tests.custom_retriever import NAME, ShortestFirstRetriever

TEXTS = [
    "Billing moved to Postgres in March after a long review of every option we had.",
    "Postgres runs billing.",
    "The cafeteria serves vegan lunch on Fridays.",
]


@pytest.fixture
async def engine(tmp_path: Path, hash_embedder):
    eng = RecallEngine(tmp_path / "data", embedder=hash_embedder)
    await eng.remember(TEXTS, dataset_name="docs")
    yield eng
    eng.close()


async def test_recall_runs_a_registered_type_by_name_in_any_case(engine, registered) -> None:
    results = await engine.recall("postgres billing", query_type="shortest_first", top_k=5)
    assert [r.text for r in results] == [TEXTS[1], TEXTS[0]]
    assert {r.search_type for r in results} == {NAME}
    assert {r.kind for r in results} == {"shortest"}
    assert results[0].score == pytest.approx(1 / len(TEXTS[1]))


async def test_its_typed_options_come_through_retriever_specific_config(engine, registered) -> None:
    short = await engine.recall(
        "postgres billing",
        query_type=NAME,
        retriever_specific_config={"max_chars": 30},
        verbose=True,
    )
    assert [r.text for r in short] == [TEXTS[1]]
    assert short[0].metadata["retrieval"] == {"max_chars": 30}
    with pytest.raises(InvalidInputError, match="max_chars"):
        await engine.recall(
            "billing", query_type=NAME, retriever_specific_config={"max_chars": "x"}
        )


async def test_a_router_rule_may_target_it(engine, registered, tmp_path: Path) -> None:
    router = Router(
        parse_rules([{"id": "short", "pattern": r"\bbrief\b", "target": NAME.lower(), "weight": 5}])
    )
    assert router.route("a brief note on billing").search_type == NAME
    rules = tmp_path / "rules.toml"
    rules.write_text(
        f'[[rules]]\nid = "short"\npattern = \'\\bbrief\\b\'\ntarget = "{NAME}"\nweight = 50.0\n',
        encoding="utf-8",
    )
    routed = RecallEngine(tmp_path / "routed", embedder=engine.embedder, router_rules=rules)
    try:
        await routed.remember(TEXTS, dataset_name="docs")
        results = await routed.recall("brief postgres billing")
    finally:
        routed.close()
    assert results and {r.search_type for r in results} == {NAME}
    assert results[0].metadata["route"]["search_type"] == NAME
    assert "short" in results[0].metadata["route"]["fired"]


async def test_unregistered_it_is_refused_everywhere_again(engine) -> None:
    register_retriever(NAME, ShortestFirstRetriever)
    assert NAME in search_type_names() and REGISTRY[NAME] is ShortestFirstRetriever
    unregister_retriever(NAME)
    assert NAME not in search_type_names() and NAME not in REGISTRY
    with pytest.raises(InvalidInputError, match="Unknown search type"):
        await engine.recall("billing", query_type=NAME)
    with pytest.raises(ValueError, match="unknown target"):
        parse_rules([{"id": "x", "pattern": "x", "target": NAME, "weight": 1}])


def test_built_in_names_and_enum_values_still_resolve(registered) -> None:
    assert list(REGISTRY)[: len(RETRIEVERS)] == list(RETRIEVERS)
    assert list(REGISTRY)[-1] == NAME
    assert REGISTRY["CHUNKS"] is RETRIEVERS[SearchType.CHUNKS]
    assert REGISTRY[SearchType.CHUNKS] is RETRIEVERS[SearchType.CHUNKS]


class _NoFacts:
    async def retrieve(self, query, ctx):  # pragma: no cover - never run
        raise AssertionError


class _Mismatch(ShortestFirstRetriever):
    search_type: ClassVar[str] = "OTHER"


class _VagueScope(ShortestFirstRetriever):
    whole_scope = "yes"


class _Sync(ShortestFirstRetriever):
    def retrieve(self, query, ctx):  # type: ignore[override]  # pragma: no cover
        raise AssertionError


@pytest.mark.parametrize(
    ("name", "retriever", "error", "match"),
    [
        ("shortest first", ShortestFirstRetriever, InvalidInputError, "'SHORTEST_FIRST'"),
        ("9LIVES", ShortestFirstRetriever, InvalidInputError, "starting with a letter"),
        ("", ShortestFirstRetriever, InvalidInputError, "upper-case letters"),
        ("CHUNKS", RETRIEVERS[SearchType.CHUNKS], InvalidInputError, "built-in"),
        ("AUTO", ShortestFirstRetriever, InvalidInputError, "reserved"),
        (NAME, ShortestFirstRetriever(), TypeError, "takes a retriever class"),
        (NAME, _NoFacts, TypeError, r"search_type = 'SHORTEST_FIRST'.*kind: str.*config_model"),
        (NAME, _Mismatch, TypeError, "search_type = 'SHORTEST_FIRST'"),
        (NAME, _Sync, TypeError, "async def retrieve"),
        (NAME, _VagueScope, TypeError, "whole_scope: bool"),
    ],
)
def test_a_bad_registration_is_refused_and_changes_nothing(name, retriever, error, match) -> None:
    before = (tuple(REGISTRY), search_type_names())
    with pytest.raises(error, match=match):
        register_retriever(name, retriever)
    assert (tuple(REGISTRY), search_type_names()) == before


def test_a_class_that_says_nothing_of_whole_scope_is_not_whole_scope(registered) -> None:
    assert REGISTRY[NAME].whole_scope is False


def test_a_taken_name_needs_replace(registered) -> None:
    class Other(ShortestFirstRetriever):
        pass

    register_retriever(NAME, ShortestFirstRetriever)  # the same class again: nothing to do
    with pytest.raises(InvalidInputError, match=r"already registered.*replace=True"):
        register_retriever(NAME, Other)
    assert REGISTRY[NAME] is ShortestFirstRetriever
    register_retriever(NAME, Other, replace=True)
    assert REGISTRY[NAME] is Other
    with pytest.raises(InvalidInputError, match="built-in"):
        unregister_retriever("CHUNKS")


def _install(root: Path, entry: str) -> None:
    """A distribution on ``sys.path`` whose entry point ``entry`` names a retriever."""
    info = root / "shortest_plugin-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: shortest-plugin\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(f"[{ENTRY_POINT_GROUP}]\n{entry}\n")


def test_an_installed_package_registers_through_its_entry_point(tmp_path, monkeypatch) -> None:
    _install(tmp_path, f"{NAME} = tests.custom_retriever:ShortestFirstRetriever")
    monkeypatch.syspath_prepend(str(tmp_path))
    registry = RetrieverRegistry(RETRIEVERS)
    try:
        assert registry.load_entry_points() == (NAME,)
        assert registry[NAME] is ShortestFirstRetriever and NAME in search_type_names()
        assert registry.load_entry_points() == ()  # once per process
    finally:
        registry.unregister(NAME)


def test_a_broken_entry_point_names_its_package(tmp_path, monkeypatch) -> None:
    _install(tmp_path, f"{NAME} = tests.custom_retriever:NoSuchClass")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(InvalidInputError, match=r"shortest-plugin.*Fix or uninstall"):
        RetrieverRegistry(RETRIEVERS).load_entry_points()
    assert NAME not in search_type_names()
    assert "tests.custom_retriever" in sys.modules
