"""Ends of facts: an end that calls a value by name ends that value only ("I don't live
in Rome anymore" leaves Lyon), one that describes the value ends the current one ("I
quit nursing" ends "nurse"), and "I left Acme" ends whichever value is Acme."""

from __future__ import annotations

from datetime import datetime

import pytest

from recall_engine import Conversation, Message
from recall_engine.core.facts import Statement, Validity, timeline
from recall_engine.graph.extractor import ChunkInput
from recall_engine.graph.rules import RuleBasedExtractor
from recall_engine.graph.supersession import stamp

WHEN = datetime(2024, 3, 1, 10, 0)
SAID = "2024-03-01T10:00:00"


def ends(sentence: str) -> list[tuple[str, str, bool]]:
    """(predicate, object, stated as past) of each end, or leaving, the sentence states."""
    chunk = ChunkInput(chunk_id="c1", namespace="ns", text=sentence, speaker="Ann", timestamp=WHEN)
    extraction = stamp(RuleBasedExtractor().extract_chunk(chunk), WHEN)
    names = {e.id: e.name for e in extraction.entities}
    return sorted(
        (r.predicate, names[r.target_id], r.valid_from is None)
        for r in extraction.relations
        if r.predicate.startswith("ended_") or r.predicate == "left"
    )


def test_a_named_end_of_a_value_never_held_ends_nothing():
    lyon = Statement("lyon", "L", "c-lyon", datetime(2023, 1, 5))
    rome = Statement("rome", "R", "c-rome", WHEN, ends=True, past=True)
    out = timeline([lyon, rome])
    assert out["lyon"] == Validity()
    assert out["rome"] == Validity(WHEN)  # an end never holds


def test_a_named_end_of_the_held_value_ends_it():
    lyon = Statement("lyon", "L", "c-lyon", datetime(2023, 1, 5))
    end = Statement("not-lyon", "L", "c-end", WHEN, ends=True, past=True)
    assert timeline([lyon, end])["lyon"] == Validity(WHEN, "not-lyon", "c-end")


@pytest.mark.parametrize(
    ("sentence", "found"),
    [
        ("I don't live in Rome anymore.", [("ended_home", "Rome", True)]),
        ("I no longer work at Initech.", [("ended_employer", "Initech", True)]),
        ("I broke up with Sam.", [("ended_relationship", "Sam", False)]),
        ("I quit nursing last month.", [("ended_job", "nursing", False)]),
        ("We broke up.", [("ended_relationship", "partner", False)]),
        ("I broke up with my boyfriend.", [("ended_relationship", "boyfriend", False)]),
        ("I no longer have a dog.", [("ended_pet_dog", "dog", False)]),
    ],
)
def test_an_end_that_names_its_value_is_stated_as_past(sentence, found):
    assert ends(sentence) == found


@pytest.mark.parametrize(
    "sentence",
    [
        "I left Acme last month.",
        "I've left Acme.",
        "I finally left Acme after five years.",
        "I left Acme for Initech.",
    ],
)
def test_left_a_name_states_one_leaving_whose_family_the_stage_settles(sentence):
    # the sentence does not say whether Acme was a home or an employer: one "left",
    # which the graph stage makes the end of the family Acme's type names
    assert ends(sentence) == [("left", "Acme", False)]


@pytest.mark.parametrize(
    "sentence",
    [
        "I left my keys at Acme.",
        "I left early.",
        "I left Acme a review.",
        "I left Paris at noon.",
        "I left Tom at home with the kids.",
        "I never left Paris.",
        "If I left Acme, I would be broke.",
    ],
)
def test_left_that_is_no_leaving_for_good_ends_nothing(sentence):
    assert ends(sentence) == []


async def tell(engine, turns: list[tuple[str, str]]) -> None:
    for i, (when, text) in enumerate(turns):
        message = Message(id=f"m{i}", speaker="Ann", text=text, timestamp=when)
        await engine.remember(Conversation(messages=[message]), dataset_name="ann")


async def current(engine) -> set[tuple[str, str]]:
    """The current values of Ann's aspects (facts of a family: a home, a job, ...)."""
    return {(f.predicate, f.object) for f in await engine.facts("Ann", history=False) if f.family}


HOME_AND_JOB = [
    ("2023-01-05T10:00:00", "I live in Lyon."),
    ("2023-01-05T10:05:00", "I work for Acme."),
]


@pytest.mark.parametrize(
    "text",
    [
        "I don't live in Rome anymore.",
        "I no longer live in Rome.",
        "I moved out of Rome years ago.",
        "I no longer work at Initech.",
        "I quit my job at Initech.",
        "I left Initech last month.",
    ],
)
async def test_an_end_naming_a_value_never_held_leaves_the_current_one(engine, text):
    await tell(engine, [*HOME_AND_JOB, (SAID, text)])
    assert await current(engine) == {("lives_in", "Lyon"), ("works_for", "Acme")}
    (result,) = await engine.recall("Where does Ann live now?", datasets=["ann"])
    assert result.text.startswith("Lyon")


@pytest.mark.parametrize(
    ("text", "left"),
    [
        ("I left Acme last month.", {("lives_in", "Lyon")}),
        ("I left Acme.", {("lives_in", "Lyon")}),
        ("I've left my job at Acme.", {("lives_in", "Lyon")}),
        ("I left Lyon for good.", {("works_for", "Acme")}),
        ("I left my keys at Acme.", {("lives_in", "Lyon"), ("works_for", "Acme")}),
        ("I left Acme a review.", {("lives_in", "Lyon"), ("works_for", "Acme")}),
    ],
)
async def test_left_ends_the_value_it_names_whatever_its_family(engine, text, left):
    await tell(engine, [*HOME_AND_JOB, (SAID, text)])
    assert await current(engine) == left
    facts = {(f.predicate, f.object): f for f in await engine.facts("Ann")}
    for key in {("lives_in", "Lyon"), ("works_for", "Acme")} - left:
        assert facts[key].valid_until == datetime(2024, 3, 1, 10)
        assert [r.object for r in facts[key].superseded_by] == [key[1]]


async def test_left_answers_that_no_employer_is_current(engine):
    await tell(engine, [*HOME_AND_JOB, (SAID, "I left Acme last month.")])
    (result,) = await engine.recall("Where does Ann work now?", datasets=["ann"])
    assert result.text == "No current employer is known: Acme until March 2024"


@pytest.mark.parametrize(
    ("turns", "kept"),
    [
        # an end that describes the value still ends it
        ([("2023-01-05T10:00:00", "I am a nurse."), (SAID, "I quit nursing.")], set()),
        (
            [("2023-01-05T10:00:00", "I'm dating Tom."), (SAID, "I broke up with my boyfriend.")],
            set(),
        ),
        # a relationship's end ends the current one, a state as well as a person
        ([("2023-01-05T10:00:00", "I just got engaged!"), (SAID, "I broke up with Tom.")], set()),
        ([("2023-01-05T10:00:00", "I'm dating Tom."), (SAID, "I broke up with Tom.")], set()),
    ],
)
async def test_ends_of_jobs_and_partners(engine, turns, kept):
    await tell(engine, turns[:1])
    assert len(await current(engine)) == 1  # the value the end is about held
    await tell(engine, turns)
    assert await current(engine) == kept


async def stored_ends(engine) -> list[tuple[str, str]]:
    """(predicate, object) of every stored end, and of every "left" the family of
    which nothing told."""
    graph = engine.store().graph
    names = {e.id: e.name for e in graph.entities()}
    return sorted(
        (r.predicate, names[r.target_id])
        for r in graph.relations()
        if r.predicate.startswith("ended_") or r.predicate == "left"
    )


@pytest.mark.parametrize("one_batch", [False, True], ids=["turn-by-turn", "one-batch"])
@pytest.mark.parametrize(
    ("turns", "stored"),
    [
        # the value held under that name says which family ended: one end edge
        ([*HOME_AND_JOB, (SAID, "I left Acme last month.")], [("ended_employer", "Acme")]),
        ([*HOME_AND_JOB, (SAID, "I left Lyon for good.")], [("ended_home", "Lyon")]),
        # nothing held: a place is a home left, an organisation an employer left
        ([(SAID, "We finally left London for good.")], [("ended_home", "London")]),
        ([(SAID, "I left Acme Corp last month.")], [("ended_employer", "Acme Corp")]),
        # nothing tells what Acme is: Ann left it, and no aspect of hers is said to end
        ([(SAID, "I left Acme last month.")], [("left", "Acme")]),
    ],
)
async def test_left_stores_one_end_of_the_family_its_value_belongs_to(
    engine, turns, stored, one_batch
):
    if one_batch:
        messages = [
            Message(id=f"m{i}", speaker="Ann", text=text, timestamp=datetime.fromisoformat(when))
            for i, (when, text) in enumerate(turns)
        ]
        await engine.remember(Conversation(messages=messages), dataset_name="ann")
    else:
        await tell(engine, turns)
    assert await stored_ends(engine) == stored


@pytest.mark.parametrize(
    ("held", "end"),
    [
        ("I work for Acme Corp.", "I no longer work at Acme."),
        ("I work for Acme Corp.", "I left Acme last month."),
        ("I work for Acme Inc.", "I quit my job at Acme."),
        ("I work for Acme Ltd.", "I don't work for Acme anymore."),
        ("I work for Acme.", "I left Acme Corp last month."),
    ],
)
async def test_a_named_end_ends_the_held_value_of_that_name_without_its_legal_form(
    engine, held, end
):
    await tell(engine, [("2023-01-05T10:00:00", "I live in Lyon."), ("2023-01-05T10:05:00", held)])
    await tell(engine, [(SAID, end)])
    assert await current(engine) == {("lives_in", "Lyon")}
    (employer,) = [f for f in await engine.facts("Ann") if f.predicate == "works_for"]
    assert employer.valid_until == datetime(2024, 3, 1, 10)


@pytest.mark.parametrize(
    "end",
    ["I no longer work at Acme Labs.", "I left Acme Labs last month.", "I left Initech."],
)
async def test_a_named_end_of_another_company_sharing_a_word_ends_nothing(engine, end):
    await tell(engine, [("2023-01-05T10:05:00", "I work for Acme Corp."), (SAID, end)])
    assert await current(engine) == {("works_for", "Acme Corp")}
