"""The routing table of issue 3, query by query, plus every rule's own examples."""

from __future__ import annotations

import pytest

from recall_engine.core.search_types import SearchType
from router import DEFAULT_RULES, route

CYPHER = SearchType.CYPHER
CODING = SearchType.CODING_RULES
LEXICAL = SearchType.CHUNKS_LEXICAL
SUMMARY = SearchType.GRAPH_SUMMARY_COMPLETION
COT = SearchType.GRAPH_COMPLETION_COT
CONTEXT = SearchType.GRAPH_COMPLETION_CONTEXT_EXTENSION
TEMPORAL = SearchType.TEMPORAL
DEFAULT = SearchType.GRAPH_COMPLETION

CASES: list[tuple[str, SearchType]] = [
    # Cypher: uppercase clause at the start, or an edge anywhere.
    ("MATCH (n:Person) RETURN n", CYPHER),
    ("RETURN 42", CYPHER),
    ("CREATE (a:Team)", CYPHER),
    ("MERGE (x:Tag {name: 'ai'})", CYPHER),
    ("  MATCH (n)\nRETURN n  ", CYPHER),
    ("(a)--(b)", CYPHER),
    ("match the invoices to the orders", DEFAULT),
    ("Who can MATCH these records?", DEFAULT),
    # Coding vocabulary routes; incidental code tokens alone do not.
    ("What coding rules apply to `gate.py`?", CODING),
    ("Show code review feedback for the API", CODING),
    ("best practice for naming tests", CODING),
    ("Which linter do we use?", CODING),
    ("lint errors in the build", CODING),
    ("Linting setup for the monorepo", CODING),
    ("Refactoring plan for the parser", CODING),
    ("Where is `def recover()` mentioned in the incident notes?", DEFAULT),
    ("import pandas as pd in the notebook", DEFAULT),
    ("class Foo( definition location", DEFAULT),
    ("function parse( is where?", DEFAULT),
    ("the handler in server.py", DEFAULT),
    ("Summarize what `async def fetch()` does", SUMMARY),
    ("How is `def load()` related to the cache?", CONTEXT),
    # Lexical: the whole query quoted, or exact-wording vocabulary.
    ('"revenue grew by 12%"', LEXICAL),
    ("“smart quoted phrase”", LEXICAL),
    ('"Why did the migration fail?"', LEXICAL),
    ('"revenue grew" and "costs fell"', DEFAULT),
    ('Find "revenue grew" in the report', DEFAULT),
    ("Find the exact quote from Ann", LEXICAL),
    ("verbatim transcript of the call", LEXICAL),
    ("the literal text of clause 4", LEXICAL),
    ("Repeat it word for word", LEXICAL),
    # Summary, with inflections.
    ("Summarize the Q3 report", SUMMARY),
    ("summarise the meeting", SUMMARY),
    ("summarizing the week, what happened?", SUMMARY),
    ("a summarised version of the spec", SUMMARY),
    ("summaries of all incidents", SUMMARY),
    ("Overview of the payment system", SUMMARY),
    ("Outline the onboarding steps", SUMMARY),
    ("TL;DR of the RFC", SUMMARY),
    ("What is the gist of the memo?", SUMMARY),
    ("key takeaways from the retro", SUMMARY),
    ("main points of the talk", SUMMARY),
    ("high level view of the stack", SUMMARY),
    # Chain of thought, with inflections and the weak connectives.
    ("Why did the migration fail?", COT),
    ("explain the cache eviction policy", COT),
    ("What explains the drop in sales?", COT),
    ("The outage, explained", COT),
    ("Give an explanation of the fee", COT),
    ("reasoning for the decision", COT),
    ("step-by-step guide to deploy", COT),
    ("chain of thought for the diagnosis", COT),
    ("because", COT),
    ("Therefore, what should we do next?", COT),
    ("consequently what broke", COT),
    # Context extension.
    ("How is Einstein related to Ulm?", CONTEXT),
    ("How are the three services connected?", CONTEXT),
    ("How is it linked?", CONTEXT),
    ("how do Alice and Bob, the two founders of the company, relate", DEFAULT),
    ("What connects Tokyo and Kyoto?", CONTEXT),
    ("what links the two reports", CONTEXT),
    ("path between the API and the DB", CONTEXT),
    ("degree of separation from Kevin Bacon", CONTEXT),
    ("connections of the CTO", CONTEXT),
    ("relationships in the org chart", CONTEXT),
    ("documents linked to the launch", CONTEXT),
    ("topics not related to billing", DEFAULT),
    # Temporal words, periods, years and year ranges.
    ("What happened before the outage?", TEMPORAL),
    ("when was the contract signed", TEMPORAL),
    ("After the merger, who left?", TEMPORAL),
    ("During the freeze what shipped?", TEMPORAL),
    ("Since January what changed?", TEMPORAL),
    ("until the launch what is blocked", TEMPORAL),
    ("Project timeline", TEMPORAL),
    ("chronology of the dispute", TEMPORAL),
    ("The Victorian era", TEMPORAL),
    ("Trends of the past decades", TEMPORAL),
    ("the 19th century", TEMPORAL),
    ("What changed in 2024?", TEMPORAL),
    ("Music from the 1980s", TEMPORAL),
    ("Papers published between 1990 and 2000", TEMPORAL),
    # Relative times (issue 18), month names after a preposition or before a day.
    ("What did Liam tell Priya last March?", TEMPORAL),
    ("last month", TEMPORAL),
    ("What happened in the last 12 months?", TEMPORAL),
    ("two weeks ago", TEMPORAL),
    ("What did Ann do this year?", TEMPORAL),
    ("What changed since January?", TEMPORAL),
    ("over the past couple of weeks", TEMPORAL),
    ("What did Ann eat yesterday?", TEMPORAL),
    ("What did Ann do in May?", TEMPORAL),
    ("the call on March 3rd", TEMPORAL),
    ("May I ask who owns it?", DEFAULT),
    ("What may happen next?", DEFAULT),
    ("What is the last name of the CEO?", DEFAULT),
    ("next steps for the team", DEFAULT),
    ("the last day of the trip", DEFAULT),
    ("What was the past like?", DEFAULT),
    # Numbers that are not years.
    ("Open port 8080", DEFAULT),
    ("Services on port 2000", DEFAULT),
    ("What does error 1999 mean?", DEFAULT),
    ("Look up code 2001 in the manual", DEFAULT),
    ("Ticket #1984 status", DEFAULT),
    ("Is $2000 enough?", DEFAULT),
    ("pi is 3.1415", DEFAULT),
    ("a 12000 word essay", DEFAULT),
    ("in 999 cases", DEFAULT),
    ("plans for 2200", DEFAULT),
    # Each negation word, contractions included, silences the cue after it.
    ("I do not need the timeline, who owns it?", DEFAULT),
    ("no summary please, who wrote it?", DEFAULT),
    ("never explain, just list owners", DEFAULT),
    ("without a timeline, list owners", DEFAULT),
    ("we lack a summary of the fix", DEFAULT),
    ("I cannot explain", DEFAULT),
    ("don't summarize, list the owners", DEFAULT),
    ("don’t summarize, list the owners", DEFAULT),
    ("it isn't related to billing", DEFAULT),
    ("doesn't explain the fix", DEFAULT),
    ("wasn't before the outage", DEFAULT),
    ("What did Ann not do last month?", DEFAULT),
    ("can't explain the bug", DEFAULT),
    ("won't summarize it", DEFAULT),
    # ... but only within 20 characters, only before it, only as a whole word,
    # and a later un-negated match of the same rule still counts.
    ("Not that it matters much to anyone, but why?", COT),
    ("Why not?", COT),
    ("knot theory timeline", TEMPORAL),
    ("another summary", SUMMARY),
    ("not related to billing, but related to payroll", CONTEXT),
    ("What did Ann not buy for the party last month?", TEMPORAL),
    # Ties go to the target listed first: CYPHER, CODING_RULES, CHUNKS_LEXICAL,
    # GRAPH_SUMMARY_COMPLETION, GRAPH_COMPLETION_COT, CONTEXT_EXTENSION, TEMPORAL.
    ("Summarize the code review", CODING),
    ("What is the exact reasoning?", LEXICAL),
    ("exact timeline", LEXICAL),
    ("explain the era", COT),
    ("connections after the merger", CONTEXT),
    ("relationship between eras", TEMPORAL),
    ("Summarize the timeline", SUMMARY),
    # Plain questions fall to the default.
    ("Who won Nobel Prizes?", DEFAULT),
    ("Where was Einstein born?", DEFAULT),
    ("What is the capital city of France?", DEFAULT),
    # Aggregation wording to BROAD, a whole-memory overview to GRAPH_REPORT.
    ("List all customers in Berlin", SearchType.BROAD),
    ("How many pets does Ann have?", SearchType.BROAD),
    ("How much did we spend on cloud in total?", SearchType.BROAD),
    ("Which customer complained the most?", SearchType.BROAD),
    ("How many days ago did Ann move?", TEMPORAL),
    ("Don't list all customers, who is the biggest?", DEFAULT),
    ("What is this about?", SearchType.GRAPH_REPORT),
    ("Give me an overview of the project", SUMMARY),
    ("What is the capital of France?", DEFAULT),
]


@pytest.mark.parametrize(("query", "expected"), CASES, ids=[q for q, _ in CASES])
def test_routing_table(query: str, expected: SearchType) -> None:
    assert route(query).search_type is expected


def test_table_is_large_enough_and_covers_every_rule() -> None:
    assert len(CASES) >= 80
    fired = {rule_id for query, _ in CASES for rule_id in route(query).fired}
    assert fired == {rule.id for rule in DEFAULT_RULES}


EXAMPLES = [(rule.id, example, rule.target) for rule in DEFAULT_RULES for example in rule.examples]


@pytest.mark.parametrize(("rule_id", "example", "target"), EXAMPLES)
def test_every_rule_example_routes_to_its_target(
    rule_id: str, example: str, target: SearchType
) -> None:
    decision = route(example)
    assert decision.search_type is target
    assert rule_id in decision.fired


def test_every_default_rule_has_examples() -> None:
    assert all(rule.examples for rule in DEFAULT_RULES)
