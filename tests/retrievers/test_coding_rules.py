"""CODING_RULES through recall(): the default node set, nothing outside the sets
asked for, and node_name with OR (any set) versus AND (every set)."""

from __future__ import annotations

import pytest

from recall_engine import SearchType


@pytest.fixture
async def rules(engine):
    await engine.remember(
        "Always use parameterised SQL queries.",
        dataset_name="docs",
        node_set=["coding_agent_rules"],
    )
    await engine.remember(
        "Name SQL migrations by date.", dataset_name="docs", node_set=["coding_agent_rules"]
    )
    await engine.remember("SQL tables live in the billing schema.", dataset_name="docs")
    await engine.remember(
        "Type hints on every public SQL helper.", dataset_name="docs", node_set=["python", "style"]
    )
    await engine.remember(
        "Wrap SQL in the python db module.", dataset_name="docs", node_set=["python"]
    )
    await engine.remember("SQL keywords in upper case.", dataset_name="docs", node_set=["style"])
    return engine


def texts(results) -> set[str]:
    assert all(
        r.kind == "coding_rule" and r.search_type is SearchType.CODING_RULES for r in results
    )
    return {r.text for r in results}


async def test_default_node_set_only(rules):
    results = await rules.recall("How should I write SQL?", SearchType.CODING_RULES)
    assert texts(results) == {
        "Always use parameterised SQL queries.",
        "Name SQL migrations by date.",
    }


async def test_nearest_rule_first_and_top_k(rules):
    results = await rules.recall("parameterised SQL queries", SearchType.CODING_RULES, top_k=1)
    assert [r.text for r in results] == ["Always use parameterised SQL queries."]


async def test_node_name_or_reads_any_of_the_sets(rules):
    results = await rules.recall(
        "SQL", SearchType.CODING_RULES, node_name=["python", "style"], verbose=True
    )
    assert texts(results) == {
        "Type hints on every public SQL helper.",
        "Wrap SQL in the python db module.",
        "SQL keywords in upper case.",
    }
    assert results[0].metadata["retrieval"]["node_sets"] == ["python", "style"]


async def test_node_name_and_reads_chunks_in_every_set(rules):
    results = await rules.recall(
        "SQL",
        SearchType.CODING_RULES,
        node_name=["python", "style"],
        node_name_filter_operator="AND",
    )
    assert texts(results) == {"Type hints on every public SQL helper."}


async def test_a_set_nobody_used_answers_nothing(rules):
    assert await rules.recall("SQL", SearchType.CODING_RULES, node_name=["rust"]) == []
