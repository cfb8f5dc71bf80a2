"""What is true now changes only with what is asserted: a negation, a question, a
condition, a wish or an undated plan leaves the current home and employer; a move,
and a plan once its date comes, changes them."""

from __future__ import annotations

from datetime import datetime

import pytest

from tests.engine.test_facts import tell, view

BEFORE = [
    ("b1", "2023-01-05T10:00:00", "I live in Lyon, near the old town."),
    ("b2", "2023-01-05T10:05:00", "I work at Acme as an engineer."),
]
SAID = "2024-03-01T10:00:00"


async def _current(engine):
    return {(f.predicate, f.object) for f in await engine.facts("Ann", history=False)}


@pytest.mark.parametrize(
    "text",
    [
        "I don't live in Paris.",
        "I never worked at Initech.",
        "I have never lived in Berlin.",
        "If I moved to Berlin, I would miss my friends.",
        "Should I move to Oslo?",
        "I'm going to move to Oslo.",
    ],
)
async def test_what_is_not_asserted_changes_nothing_now(engine, text):
    await tell(engine, [*BEFORE, ("c1", SAID, text)])
    assert await _current(engine) == {("lives_in", "Lyon"), ("works_for", "Acme")}
    (result,) = await engine.recall("Where does Ann live now?", datasets=["ann"])
    assert result.text.startswith("Lyon")


async def test_a_planned_move_holds_from_its_date(engine):
    await tell(engine, [*BEFORE, ("c1", SAID, "I'm moving to Oslo next month.")])
    before = view(await engine.facts("Ann", as_of="2024-03-15"))
    assert ("lives_in", "Lyon") in before and ("moved_to", "Oslo") not in before
    after = view(await engine.facts("Ann", as_of="2024-04-15"))
    assert ("moved_to", "Oslo") in after and ("lives_in", "Lyon") not in after
    lyon = view(await engine.facts("Ann"))[("lives_in", "Lyon")]
    assert lyon.valid_until == datetime(2024, 4, 1)


async def test_a_move_stated_as_done_changes_the_home(engine):
    await tell(engine, [*BEFORE, ("c1", SAID, "I moved to Oslo last week.")])
    assert await _current(engine) == {("moved_to", "Oslo"), ("works_for", "Acme")}
    (result,) = await engine.recall("Where does Ann live now?", datasets=["ann"])
    assert result.text.startswith("Oslo")


async def test_quitting_the_job_at_an_employer_ends_that_employer(engine):
    await tell(engine, [*BEFORE, ("c1", SAID, "I quit my job at Acme.")])
    acme = view(await engine.facts("Ann"))[("works_for", "Acme")]
    assert acme.valid_until == datetime(2024, 3, 1, 10)
    assert [r.predicate for r in acme.superseded_by] == ["ended_employer"]
