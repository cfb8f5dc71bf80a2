"""Short conversations told turn by turn, and the facts a careful reader keeps of them.

Each case is a conversation (moves, job changes, partners, pets gained and lost,
preferences that change, plans, negations, questions, other speakers talking about
the user) and every fact of an aspect (a home, an employer, a job, a partner, a pet,
a favourite, a preference) that ``facts("Ann")`` should then list, with the day it
started and the day it ended (None: unknown start, or still current). A statement
counts from its message's time unless it names a year ("In 2019 I moved to Berlin")
or a later time it plans for ("I'm moving to Oslo next month"): that is the rule of
``graph.supersession.stamp``, so "last week" and "in May" count from the message.
"""

from __future__ import annotations

from datetime import datetime

import pytest

from recall_engine import Conversation, Message

D1, D2, D3 = "2023-01-05", "2023-06-01", "2024-06-01"

Turn = tuple[str, str] | tuple[str, str, str]
"""(day, text) said by Ann at 10:00 that day, or (day, text, speaker)."""
Fact = tuple[str, str, str | None, str | None]
"""(predicate, object, first day, last day)."""

CASES: dict[str, tuple[list[Turn], set[Fact]]] = {
    # moves
    "moved": (
        [(D1, "I live in Lyon."), (D2, "I moved to Paris last week!")],
        {("lives_in", "Lyon", D1, D2), ("moved_to", "Paris", D2, None)},
    ),
    "relocated": (
        [(D1, "I live in Lyon."), (D2, "We relocated to Berlin in May.")],
        {("lives_in", "Lyon", D1, D2), ("moved_to", "Berlin", D2, None)},
    ),
    "moved back": (
        [(D1, "I live in Lyon."), (D2, "I moved to Paris."), (D3, "I moved back to Lyon.")],
        {
            ("lives_in", "Lyon", D1, D2),
            ("moved_to", "Paris", D2, D3),
            ("moved_to", "Lyon", D3, None),
        },
    ),
    "used to": (
        [(D2, "I used to live in Boston, now I live in Denver.")],
        {("lives_in", "Boston", None, D2), ("lives_in", "Denver", D2, None)},
    ),
    "lived for years": (
        [(D2, "I've lived in Chicago for five years.")],
        {("lives_in", "Chicago", D2, None)},
    ),
    "a year named": (
        [(D2, "In 2019 I moved to Berlin."), ("2023-06-02", "I live in Munich now.")],
        {
            ("moved_to", "Berlin", "2019-01-01", "2023-06-02"),
            ("lives_in", "Munich", "2023-06-02", None),
        },
    ),
    "left a city": (
        [(D1, "I live in Portland."), (D2, "We left Portland in May.")],
        {("lives_in", "Portland", D1, D2)},
    ),
    # plans, negations, conditions, questions
    "a plan": (
        [(D1, "I live in Lyon."), (D2, "I'm going to move to Berlin next year.")],
        {("lives_in", "Lyon", D1, "2024-01-01"), ("moved_to", "Berlin", "2024-01-01", None)},
    ),
    "a move next month": (
        [(D1, "I live in Lyon."), (D2, "I'm moving to Oslo next month.")],
        {("lives_in", "Lyon", D1, "2023-07-01"), ("moved_to", "Oslo", "2023-07-01", None)},
    ),
    "a plain negation": (
        [(D1, "I live in Lyon."), (D2, "I don't live in Paris.")],
        {("lives_in", "Lyon", D1, None)},
    ),
    "a condition": (
        [(D1, "I live in Lyon."), (D2, "If I moved to Tokyo, I would learn Japanese.")],
        {("lives_in", "Lyon", D1, None)},
    ),
    "a visit": (
        [(D1, "I live in Lyon."), (D2, "I'm visiting Rome this week.")],
        {("lives_in", "Lyon", D1, None)},
    ),
    "a question, then a restatement": (
        [
            (D1, "I live in Lyon."),
            (D2, "Did you move to Berlin?", "Bob"),
            (D2, "No, I still live in Lyon."),
        ],
        {("lives_in", "Lyon", D1, None), ("lives_in", "Lyon", D2, None)},
    ),
    "a question about the job": (
        [(D1, "I work for Acme."), (D2, "Do you still work for Acme?", "Bob"), (D2, "Yes, I do.")],
        {("works_for", "Acme", D1, None)},
    ),
    # other speakers
    "another speaker tells Ann's move": (
        [(D1, "I live in Lyon."), (D2, "Ann moved to Rome last month.", "Bob")],
        {("lives_in", "Lyon", D1, D2), ("moved_to", "Rome", D2, None)},
    ),
    "another speaker tells their own move": (
        [(D1, "I live in Lyon."), (D2, "I moved to Rome last month.", "Bob")],
        {("lives_in", "Lyon", D1, None)},
    ),
    "a sister's move": (
        [(D1, "I live in Lyon."), (D2, "My sister moved to Rome.")],
        {("lives_in", "Lyon", D1, None)},
    ),
    # jobs and employers
    "a new job title": (
        [(D1, "I work as a nurse."), (D2, "I'm a teacher now.")],
        {("works_as", "nurse", D1, D2), ("is_a", "teacher", D2, None)},
    ),
    "a new employer": (
        [(D1, "I work at Acme."), (D2, "I just started a new job at Initech.")],
        {("works_for", "Acme", D1, D2), ("works_for", "Initech", D2, None)},
    ),
    "a title at a company": (
        [(D1, "I'm a software engineer at Google."), (D2, "I'm now a product manager at Meta.")],
        {
            ("is_a", "software engineer", D1, D2),
            ("works_for", "Google", D1, D2),
            ("is_a", "product manager", D2, None),
            ("works_for", "Meta", D2, None),
        },
    ),
    "quit the job at": (
        [(D1, "I work for Acme."), (D2, "I quit my job at Acme yesterday.")],
        {("works_for", "Acme", D1, D2)},
    ),
    "quit my job": (
        [(D1, "I work for Acme."), (D2, "I quit my job.")],
        {("works_for", "Acme", D1, D2)},
    ),
    "left to join another": (
        [(D1, "I work for Acme."), (D2, "I left Acme to join Globex.")],
        {("works_for", "Acme", D1, D2)},
    ),
    "left the company without its legal form": (
        [(D1, "I work for Acme Corp."), (D2, "I left Acme last month.")],
        {("works_for", "Acme Corp", D1, D2)},
    ),
    "laid off": (
        [(D1, "I work for Acme."), (D2, "I was laid off from Acme.")],
        {("works_for", "Acme", D1, D2)},
    ),
    "lost the job at the employer": (
        [(D1, "I work for Acme."), (D2, "I lost my job at Acme.")],
        {("works_for", "Acme", D1, D2)},
    ),
    "lost the job at the company, unnamed": (
        [(D1, "I work for Acme."), (D2, "Since I lost my job at the company, money is tight.")],
        {("works_for", "Acme", D1, D2)},
    ),
    "lost a job at another company": (
        [(D1, "I work for Acme."), (D2, "I lost my job at Initech.")],
        {("works_for", "Acme", D1, None)},
    ),
    "fired": (
        [(D1, "I work for Acme as a nurse."), (D2, "I got fired last week.")],
        {("works_for", "Acme", D1, D2)},
    ),
    "retired": (
        [(D1, "I work as a teacher."), (D2, "I retired last month.")],
        {("works_as", "teacher", D1, D2)},
    ),
    "worked somewhere until a year": (
        [(D1, "I work for Initech."), (D2, "I worked at Acme until 2020.")],
        {("works_for", "Acme", None, "2020-01-01"), ("works_for", "Initech", D1, None)},
    ),
    "years in a job": (
        [(D2, "I've been a nurse for ten years.")],
        {("is_a", "nurse", D2, None)},
    ),
    "resigned from": (
        [(D1, "I work for Acme."), (D2, "I resigned from Acme.")],
        {("works_for", "Acme", D1, D2)},
    ),
    "a husband leaves his job": (
        [(D1, "I work for Acme."), (D2, "My husband just left Acme.")],
        {("works_for", "Acme", D1, None)},
    ),
    "another speaker leaves their job": (
        [(D1, "I work for Acme."), (D2, "I left Acme last month.", "Bob")],
        {("works_for", "Acme", D1, None)},
    ),
    # partners
    "dating, engaged, married": (
        [
            (D1, "I'm dating Tom."),
            (D2, "Tom and I just got engaged!"),
            (D3, "We got married last weekend."),
        ],
        {
            ("dating", "Tom", D1, D2),
            ("relationship_status", "engaged", D2, D3),
            ("relationship_status", "married", D3, None),
        },
    ),
    "a breakup": (
        [(D1, "I'm dating Tom."), (D2, "Tom and I broke up.")],
        {("dating", "Tom", D1, D2)},
    ),
    "single again": (
        [(D1, "I'm dating Tom."), (D2, "I'm single again.")],
        {("dating", "Tom", D1, D2), ("relationship_status", "single", D2, None)},
    ),
    "divorced": (
        [(D1, "I'm married to Tom."), (D2, "I got divorced last year.")],
        {
            ("married", "Tom", D1, D2),
            ("relationship_status", "married", D1, D2),
            ("relationship_status", "divorced", D2, None),
        },
    ),
    "separated": (
        [(D1, "I'm married to Tom."), (D2, "Tom and I separated.")],
        {
            ("married", "Tom", D1, D2),
            ("relationship_status", "married", D1, D2),
            ("relationship_status", "separated", D2, None),
        },
    ),
    "the partner tells of the divorce": (
        [(D1, "I'm married to Tom."), (D2, "Ann and I got divorced last year.", "Tom")],
        {
            ("married", "Tom", D1, D2),
            ("relationship_status", "married", D1, D2),
            ("relationship_status", "divorced", D2, None),
        },
    ),
    # pets
    "a second pet, then one dies": (
        [
            (D1, "I have a dog named Rex."),
            ("2023-03-01", "We adopted a cat named Luna."),
            (D2, "Rex passed away last week."),
        ],
        {("has_pet_dog", "Rex", D1, D2), ("has_pet_cat", "Luna", "2023-03-01", None)},
    ),
    "a new puppy": (
        [(D1, "I have a cat named Luna."), (D2, "We got a new puppy named Max!")],
        {("has_pet_cat", "Luna", D1, None), ("has_pet_dog", "Max", D2, None)},
    ),
    "a pet given away": (
        [(D1, "We adopted a cat named Luna."), (D2, "We had to give Luna away.")],
        {("has_pet_cat", "Luna", D1, D2)},
    ),
    "a pet dies, called by its species": (
        [(D1, "I have a dog named Rex."), (D2, "Our dog died last week.")],
        {("has_pet_dog", "Rex", D1, D2)},
    ),
    "the dog of two pets dies": (
        [
            (D1, "I have a cat named Luna and a dog named Rex."),
            (D2, "My dog passed away yesterday."),
        ],
        {("has_pet_cat", "Luna", D1, None), ("has_pet_dog", "Rex", D1, D2)},
    ),
    # preferences
    "a switch": (
        [(D1, "I drink coffee every morning."), (D2, "I switched to tea.")],
        {("prefers", "tea", D2, None)},
    ),
    "a favourite, said the other way round": (
        [(D1, "My favourite food is sushi."), (D2, "Pizza is my favourite food now.")],
        {("favourite_food", "sushi", D1, D2), ("favourite_food", "Pizza", D2, None)},
    ),
    "a favourite colour": (
        [(D1, "My favorite color is blue."), (D2, "Green is my favorite color these days.")],
        {("favourite_color", "blue", D1, D2), ("favourite_color", "Green", D2, None)},
    ),
}


def _day(value) -> str | None:
    return value.date().isoformat() if value is not None else None


DEFAULT_RUN = {
    "moved back",
    "a plan",
    "a plain negation",
    "another speaker tells their own move",
    "a new employer",
    "left to join another",
    "left the company without its legal form",
    "worked somewhere until a year",
    "the partner tells of the divorce",
    "a second pet, then one dies",
    "a favourite, said the other way round",
}
"""One case of each kind runs by default (each remembered turn is a commit); the rest
are in the slow set. ``test_fact_wording`` guards every rule at extraction, fast."""


@pytest.mark.parametrize(
    ("turns", "expected"),
    [
        pytest.param(*case, id=name, marks=() if name in DEFAULT_RUN else pytest.mark.slow)
        for name, case in CASES.items()
    ],
)
async def test_a_conversation_keeps_the_facts_a_careful_reader_would(engine, turns, expected):
    for i, turn in enumerate(turns):
        day, text, *who = turn
        message = Message(
            id=f"m{i}",
            speaker=who[0] if who else "Ann",
            text=text,
            timestamp=datetime.fromisoformat(f"{day}T10:00:00"),
        )
        await engine.remember(Conversation(messages=[message]), dataset_name="chat")
    facts = await engine.facts("Ann")
    found = {
        (f.predicate, f.object, _day(f.valid_from), _day(f.valid_until)) for f in facts if f.family
    }
    assert found == expected
    # what holds now is what has no end; a pet's name never stands in an object
    assert {(f.predicate, f.object) for f in facts if f.family and f.current} == {
        (p, o) for p, o, _, until in expected if until is None
    }
    assert not [f for f in facts if " named " in f.object]
