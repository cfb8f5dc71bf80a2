"""A seeded generator of state-tracking conversations for ``bench.changes``.

Each conversation is two friends chatting over dated sessions. One of them (the
subject) changes one aspect of their life one to five times: where they live, their
job, their partner, their pet, a favourite thing, a health state. Every period also
brings a fact tied to it (the neighbour of that home, the colleague of that job, ...),
and small talk fills the sessions. Questions ask about now, about each earlier period
("before X", "when ... X", first), and as of a date inside each period.

All names and wording are this module's own, drawn at random from small pools.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from bench._changes_pools import (
    CAFES,
    CITIES,
    DRINKS,
    FOODS,
    JOBS,
    MOODS,
    NEIGHBOURS,
    PEOPLE,
    PETS,
    SMALL_TALK,
)
from recall_engine import Conversation, Document, Message


@dataclass(frozen=True)
class Aspect:
    """One aspect a subject's life can change in, with the wording of its facts."""

    name: str
    first: tuple[str, ...]
    change: tuple[str, ...]
    present: tuple[str, ...]
    past_before: tuple[str, ...]
    first_q: tuple[str, ...]
    tied: tuple[str, ...] = ()
    """A fact tied to the period: {tied} is filled from ``tied_pool``."""
    tied_pool: str = ""
    tied_present: tuple[str, ...] = ()
    tied_during: tuple[str, ...] = ()


ASPECTS = {
    "home": Aspect(
        "home",
        first=("I live in {v}, not far from the station.", "I have lived in {v} for years now."),
        change=(
            "Big news: I moved to {v} last week, I live there now.",
            "I used to live in {prev}, but now I live in {v}, we moved last month.",
            "We finally moved to {v}, the boxes are still everywhere.",
            "I relocated to {v} a few days ago, new flat and all.",
        ),
        present=(
            "Where does {s} live now?",
            "Where does {s} live?",
            "Where is {s} living these days?",
        ),
        past_before=(
            "Where did {s} live before {next}?",
            "Which city did {s} live in before {next}?",
        ),
        first_q=("Where did {s} live first?",),
        tied=(
            "My neighbour {t} keeps bringing me soup.",
            "My neighbour {t} waters my plants when I travel.",
        ),
        tied_pool="neighbour",
        tied_present=("Who is {s}'s neighbour now?",),
        tied_during=("Who was {s}'s neighbour when {s} lived in {v}?",),
    ),
    "job": Aspect(
        "job",
        first=("I work as a {v} these days.", "I am a {v}, have been for a while."),
        change=(
            "I quit my old job and I am now a {v}.",
            "Guess what, I started a new job as a {v}.",
            "I switched careers, I work as a {v} now.",
        ),
        present=("What is {s}'s job?", "What does {s} do for work now?"),
        past_before=("What was {s}'s job before becoming a {next}?",),
        first_q=("What was {s}'s first job?",),
        tied=(
            "At work I usually have lunch with my colleague {t}.",
            "My colleague {t} sits right next to me.",
        ),
        tied_pool="neighbour",
        tied_present=("Who is {s}'s colleague now?",),
        tied_during=("Who was {s}'s colleague when {s} worked as a {v}?",),
    ),
    "partner": Aspect(
        "partner",
        first=("I'm dating {v}, we met at a friend's party.",),
        change=(
            "We broke up. I'm dating {v} now.",
            "Things ended with my ex, I'm seeing {v} now, I am dating {v}.",
        ),
        present=("Who is {s} dating now?", "Who is {s} dating?"),
        past_before=("Who was {s} dating before {next}?",),
        first_q=("Who did {s} date first?",),
    ),
    "pet": Aspect(
        "pet",
        first=("I have {v}.", "My pet is {v}.", "I have {v} as a pet."),
        change=(
            "Sadly {prev} died in the spring. We adopted a new pet, I have {v} now.",
            "We had to rehome {prev}, it broke my heart. Our home got a new member: I have {v}.",
        ),
        present=("What pet does {s} have now?",),
        past_before=("What pet did {s} have before {next}?",),
        first_q=("What was {s}'s first pet?",),
    ),
    "food": Aspect(
        "food",
        first=("My favourite food is {v}.",),
        change=(
            "My taste changed, my favourite food is {v} now.",
            "These days my favourite food is {v}.",
        ),
        present=("What is {s}'s favourite food now?", "What is {s}'s favourite food?"),
        past_before=("What was {s}'s favourite food before {next}?",),
        first_q=("What was {s}'s first favourite food?",),
        tied=("I buy it at {t} most weekends.",),
        tied_pool="cafe",
        tied_present=("Where does {s} buy food at the weekend now?",),
        tied_during=(),
    ),
    "mood": Aspect(
        "mood",
        first=("Honestly I feel {v} lately.",),
        change=("Things shifted, I feel {v} now.", "Update on me: I feel {v} these days."),
        present=("How does {s} feel now?", "How does {s} feel these days?"),
        past_before=("How did {s} feel before feeling {next}?",),
        first_q=("How did {s} feel at first?",),
    ),
}
POOLS = {"home": CITIES, "job": JOBS, "partner": NEIGHBOURS, "pet": PETS, "food": FOODS}
ASPECTS["pets"] = Aspect(
    "pets",
    first=("I have {v}.", "My pet is {v}."),
    change=(
        "We adopted another pet, I have {v} now as well.",
        "One more for the family: we got {v}, and {prev} loves the company.",
    ),
    present=("What pets does {s} have now?",),
    past_before=("What pets did {s} have before {next} arrived?",),
    first_q=("What was {s}'s first pet?",),
)
ASPECTS["drink"] = Aspect(
    "drink",
    first=("I switched to {v} a while ago, I have it every morning.",),
    change=(
        "I switched from {prev} to {v}, it suits me better.",
        "I have switched to {v} now, no more {prev} for me.",
    ),
    present=("What does {s} drink now?", "What does {s} prefer to drink these days?"),
    past_before=("What did {s} drink before switching to {next}?",),
    first_q=("What did {s} drink at first?",),
)
POOLS["mood"] = MOODS
POOLS |= {"pets": PETS, "drink": DRINKS}
MULTI = {"pets"}
"""Aspects whose values add up (several pets): a later value does not end the earlier."""
TIED = {"neighbour": NEIGHBOURS, "cafe": CAFES}


@dataclass
class Question:
    """One question: ``kind`` present | past | as_of; ``period`` the index of the
    period it asks about; ``answer`` the value (or tied fact) that answers it."""

    text: str
    kind: str
    period: int
    answer: str
    topic: str = "state"
    as_of: datetime | None = None
    answers: tuple[str, ...] = ()
    """Every value that must be named (an aspect of several values); empty: ``answer``."""


@dataclass
class Case:
    """A conversation, its subject's values per period, and the questions on it."""

    id: str
    subject: str
    aspect: str
    values: list[str]
    starts: list[datetime]
    conversation: Conversation
    message_period: dict[str, int] = field(default_factory=dict)
    """message id -> the period a relevant message (a state or tied fact) belongs to."""
    questions: list[Question] = field(default_factory=list)
    document: Document | None = None
    """A document that states the whole history (then ``conversation`` is empty)."""

    @property
    def changes(self) -> int:
        return len(self.values) - 1


def _value(aspect: str, value: str) -> str:
    """The short form an answer must contain: "Biscuit" of "a beagle named Biscuit"."""
    return value.split(" named ")[-1]


def make_case(index: int, rng: random.Random, changes: int) -> Case:
    """One conversation with ``changes`` changes of one aspect."""
    subject, friend = rng.sample(PEOPLE, 2)
    aspect_name = list(ASPECTS)[index % len(ASPECTS)]
    aspect = ASPECTS[aspect_name]
    values = rng.sample(POOLS[aspect_name], changes + 1)
    tied_values = rng.sample(TIED[aspect.tied_pool], changes + 1) if aspect.tied else []
    start = datetime(2021, 1, 4) + timedelta(days=rng.randrange(0, 200))
    starts, messages, periods = [], [], {}
    when = start
    for period, value in enumerate(values):
        starts.append(when)
        for session in range(2):
            stamp = when + timedelta(days=session * rng.randrange(9, 30))
            stamp += timedelta(hours=rng.randrange(8, 20))
            turns: list[tuple[str, str, bool]] = []
            a, b = rng.sample(SMALL_TALK, 2)
            turns += [(friend, a[0], False), (subject, a[1], False)]
            if session == 0:
                wording = aspect.first if period == 0 else aspect.change
                prev = _value(aspect_name, values[period - 1]) if period else ""
                turns.append((subject, rng.choice(wording).format(v=value, prev=prev), True))
                turns.append(
                    (friend, "Wow, tell me more!" if period else "Nice, how is it going?", False)
                )
            elif tied_values:
                tied = rng.choice(aspect.tied).format(t=tied_values[period])
                turns += [(subject, tied, True), (friend, "That sounds lovely.", False)]
            turns += [(friend, b[0], False), (subject, b[1], False)]
            for turn, (speaker, text, relevant) in enumerate(turns):
                mid = f"S{period}.{session}:{turn}"
                at = (stamp + timedelta(minutes=turn)).isoformat()
                messages.append(Message(id=mid, speaker=speaker, text=text, timestamp=at))
                if relevant:
                    periods[mid] = period
        when = when + timedelta(days=rng.randrange(90, 240))
    case = Case(
        id=f"chg-{index:02d}",
        subject=subject,
        aspect=aspect_name,
        values=values,
        starts=starts,
        conversation=Conversation(messages=messages),
        message_period=periods,
    )
    _questions(case, aspect, tied_values, rng)
    return case


def _questions(case: Case, aspect: Aspect, tied: list[str], rng: random.Random) -> None:
    s, values, last = case.subject, case.values, len(case.values) - 1
    short = [_value(case.aspect, v) for v in values]
    multi = case.aspect in MULTI

    def add(question: Question) -> None:
        if multi and question.topic == "state" and question.text != first:
            question.answers = tuple(short[: question.period + 1])
        case.questions.append(question)

    first = aspect.first_q[0].format(s=s)
    add(Question(rng.choice(aspect.present).format(s=s), "present", last, short[last]))
    if tied and aspect.tied_present:
        add(Question(aspect.tied_present[0].format(s=s), "present", last, tied[last], "tied"))
    for period in range(last):
        nxt = short[period + 1]
        add(
            Question(
                rng.choice(aspect.past_before).format(s=s, next=nxt), "past", period, short[period]
            )
        )
        if tied and aspect.tied_during:
            text = aspect.tied_during[0].format(s=s, v=short[period])
            add(Question(text, "past", period, tied[period], "tied"))
    if last:
        add(Question(first, "past", 0, short[0]))
    for period in range(last + 1):
        end = case.starts[period + 1] if period < last else case.starts[period] + timedelta(days=90)
        middle = case.starts[period] + (end - case.starts[period]) / 2
        text = rng.choice(aspect.present).format(s=s)
        add(Question(text, "as_of", period, short[period], as_of=middle))


def generate(count: int = 45, seed: int = 36) -> list[Case]:
    """``count`` cases, changes cycling 1..5, reproducible from ``seed``."""
    rng = random.Random(seed)
    return [make_case(i, rng, 1 + i % 5) for i in range(count)]
