"""Facts that change in less direct ways: several values at once (pets), "used to",
"switched to", and a change stated inside one document."""

from __future__ import annotations

from datetime import datetime

from recall_engine import Document
from tests.engine.test_facts import tell, view


async def test_pets_add_up_and_only_an_explicit_end_ends_one(engine):
    await tell(
        engine,
        [
            ("p1", "2023-01-06T10:00:00", "I have a beagle named Biscuit."),
            ("p2", "2023-09-01T10:00:00", "We adopted a black cat called Shadow."),
            ("p3", "2024-02-01T10:00:00", "Sadly our old dog Biscuit died last month."),
        ],
    )
    by = view(await engine.facts("Ann"))
    assert by[("has_pet_cat", "Shadow")].current
    biscuit = by[("has_pet", "Biscuit")]
    assert biscuit.valid_until == datetime(2024, 2, 1, 10)
    assert [r.predicate for r in biscuit.superseded_by] == ["ended_pet"]
    both = view(await engine.facts("Ann", as_of="2023-12-01"))
    assert {("has_pet", "Biscuit"), ("has_pet_cat", "Shadow")} <= set(both)


async def test_used_to_states_a_past_fact_that_leaves_the_current_one(engine):
    await tell(
        engine,
        [
            ("u1", "2023-01-05T10:00:00", "I live in Paris, close to the river."),
            ("u2", "2024-03-01T10:00:00", "I used to live in Lyon, years ago."),
        ],
    )
    by = view(await engine.facts("Ann"))
    assert by[("lives_in", "Paris")].current
    lyon = by[("lives_in", "Lyon")]
    assert not lyon.current and lyon.valid_from is None
    assert lyon.valid_until == datetime(2024, 3, 1, 10)
    assert ("lives_in", "Lyon") not in view(await engine.facts("Ann", history=False))


async def test_used_to_ends_its_own_value_when_that_still_held(engine):
    await tell(
        engine,
        [
            ("u1", "2023-01-05T10:00:00", "I work as a nurse at the city hospital."),
            ("u2", "2024-03-01T10:00:00", "I used to work as a nurse, it was hard."),
        ],
    )
    facts = [f for f in await engine.facts("Ann") if f.predicate == "works_as"]
    # one fact: the dated one, ended when she said it was over (the past one restates it)
    assert [(f.valid_from, f.valid_until) for f in facts] == [
        (datetime(2023, 1, 5, 10), datetime(2024, 3, 1, 10))
    ]


async def test_a_switch_replaces_the_earlier_switch(engine):
    ids = await tell(
        engine,
        [
            ("s1", "2023-01-05T10:00:00", "I switched from coffee to green tea last winter."),
            ("s2", "2024-01-05T10:00:00", "I switched to matcha, it is gentler."),
        ],
    )
    by = view(await engine.facts("Ann"))
    assert by[("prefers", "matcha")].current
    tea = by[("prefers", "green tea")]
    assert tea.valid_until == datetime(2024, 1, 5, 10)
    assert [r.object for r in tea.superseded_by] == ["matcha"]
    await engine.forget(data_id=ids[1:])
    assert view(await engine.facts("Ann"))[("prefers", "green tea")].current


async def test_a_change_inside_one_document_supersedes_in_reading_order(engine):
    text = (
        "Ruth Keller lived in Lyon for many years. "
        "In 2019 Ruth Keller moved to Berlin. "
        "Ruth Keller moved to Vienna after that."
    )
    await engine.remember(Document(text=text, created_at="2024-05-01"), dataset_name="bio")
    by = view(await engine.facts("Ruth Keller"))
    assert by[("moved_to", "Vienna")].current
    berlin = by[("moved_to", "Berlin")]
    assert berlin.valid_from == datetime(2019, 1, 1)  # the year the text names
    assert not berlin.current and berlin.superseded_by[0].object == "Vienna"
    assert not by[("lives_in", "Lyon")].current


async def test_events_carry_valid_from_in_the_graph(engine):
    await tell(
        engine,
        [
            ("e1", "2024-03-01T10:00:00", "In 2019 I ran my first marathon in Berlin."),
            ("e2", "2024-03-02T10:00:00", "I went hiking in the Alps yesterday."),
        ],
    )
    rows = await engine.recall(
        "MATCH (v:Event) RETURN v.text AS text, v.valid_from AS since ORDER BY since",
        query_type="CYPHER",
    )
    since = {r.raw["values"]["since"][:10] for r in rows}
    assert {"2019-01-01", "2024-03-01"} <= since
    assert all(r.raw["values"]["since"] for r in rows)


async def test_a_switch_replaces_only_the_preference_of_its_own_kind(engine):
    await tell(
        engine,
        [
            ("k1", "2023-01-05T10:00:00", "I switched my phone to a Pixel last year."),
            ("k2", "2023-02-05T10:00:00", "I switched to green tea for my morning drink."),
            ("k3", "2024-01-05T10:00:00", "I switched my phone from the Pixel to an iPhone."),
            ("k4", "2024-03-05T10:00:00", "I switched to rooibos for my morning drink."),
        ],
    )
    by = view(await engine.facts("Ann"))
    assert by[("prefers_phone", "iPhone")].current and by[("prefers_drink", "rooibos")].current
    assert by[("prefers_phone", "Pixel")].valid_until == datetime(2024, 1, 5, 10)
    tea = by[("prefers_drink", "green tea")]
    assert tea.valid_until == datetime(2024, 3, 5, 10)  # the phone did not end it
    assert [r.object for r in tea.superseded_by] == ["rooibos"]


async def test_an_end_that_names_a_species_ends_that_pet_only(engine):
    await tell(
        engine,
        [
            ("e1", "2023-01-06T10:00:00", "I have a beagle named Biscuit."),
            ("e2", "2023-09-01T10:00:00", "We adopted a black cat called Shadow."),
            ("e3", "2024-02-01T10:00:00", "I no longer have a dog, it was too much."),
        ],
    )
    by = view(await engine.facts("Ann"))
    assert by[("has_pet_cat", "Shadow")].current
    biscuit = by[("has_pet", "Biscuit")]
    assert biscuit.valid_until == datetime(2024, 2, 1, 10)
    assert [r.predicate for r in biscuit.superseded_by] == ["ended_pet_dog"]


async def test_an_end_that_cannot_tell_which_pet_ends_none(engine):
    await tell(
        engine,
        [
            ("n1", "2023-01-06T10:00:00", "I have a tabby cat named Pepper."),
            ("n2", "2023-09-01T10:00:00", "We adopted a black cat called Shadow."),
            ("n3", "2023-10-01T10:00:00", "I have a dog named Rex."),
            ("n4", "2024-02-01T10:00:00", "We don't have a cat anymore, sadly."),
        ],
    )
    facts = [f for f in await engine.facts("Ann") if f.family == "pet"]
    assert {f.object for f in facts} == {"Pepper", "Shadow", "Rex"}
    assert all(f.current for f in facts)
