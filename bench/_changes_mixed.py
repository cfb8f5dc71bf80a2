"""Conversations where one change must not end another value, for ``bench.changes``.

Two shapes, each a seeded conversation between two friends over dated sessions:

- ``prefs``: the subject switches two kinds of preference (a drink and a phone) at
  different times. The drink's switch must not end the phone, nor the phone's the
  drink. The conversation is asked about twice, as two cases over the same turns
  (one per kind, each its own dataset), so each kind's periods are scored alone.
- ``species``: the subject has a pet of one species, adds one of another, then ends
  the first with a wording that names only its species ("we don't have a dog
  anymore"). The other pet must stay current.

Names and wording are this module's own.
"""

from __future__ import annotations

import random
from datetime import datetime, timedelta

from bench._changes_data import DRINKS, PEOPLE, SMALL_TALK, Case, Question
from recall_engine import Conversation, Message

PHONES = ["Pixel", "Fairphone", "Nokia", "Motorola", "OnePlus", "Xperia"]
_DRINK_FIRST = ("I switched to {v} a while ago, I have it every morning.",)
_DRINK_SWITCH = (
    "I switched from {prev} to {v}, it suits me better.",
    "I have switched to {v} now, no more {prev} for me.",
)
_PHONE_FIRST = ("I switched my phone to a {v} last year and I love it.",)
_PHONE_SWITCH = (
    "I switched my phone to a {v}, the old {prev} kept crashing.",
    "My {prev} died, so I switched my phone to a {v}.",
)
# (species word, a name); the end names only the species.
_PETS = [("dog", "Rufus"), ("cat", "Mochi"), ("rabbit", "Thistle"), ("parrot", "Mango")]
_PET_ENDS = (
    "We don't have a {k} anymore, it was too much with our hours.",
    "We no longer have a {k}, it went to my cousin's farm.",
    "We had to rehome our {k}, it broke my heart.",
)


def _sessions(
    rng: random.Random, start: datetime, statements: list[tuple[str, str]], friend: str
) -> tuple[list[Message], list[datetime]]:
    """One session per statement ``(speaker, text)``, months apart, padded with small
    talk; returns the messages and each session's time. The statement's id is
    ``S{i}:2``."""
    messages, times = [], []
    when = start
    for i, (speaker, text) in enumerate(statements):
        stamp = when + timedelta(hours=rng.randrange(8, 20))
        times.append(stamp)
        a, b = rng.sample(SMALL_TALK, 2)
        turns = [(friend, a[0]), (speaker, a[1]), (speaker, text), (friend, "Oh really?")]
        turns += [(friend, b[0]), (speaker, b[1])]
        for turn, (who, said) in enumerate(turns):
            at = stamp + timedelta(minutes=turn)
            messages.append(Message(id=f"S{i}:{turn}", speaker=who, text=said, timestamp=at))
        when += timedelta(days=rng.randrange(90, 200))
    return messages, times


def _middle(a: datetime, b: datetime) -> datetime:
    return a + (b - a) / 2


def make_prefs_cases(index: int, rng: random.Random) -> list[Case]:
    """One conversation switching a drink, then a phone (two cases over its turns).

    Sessions: first drink and first phone; the drink's switch; the phone's switch.
    """
    subject, friend = rng.sample(PEOPLE, 2)
    drinks, phones = rng.sample(DRINKS, 2), rng.sample(PHONES, 2)
    statements = [
        (subject, rng.choice(_DRINK_FIRST).format(v=drinks[0])),
        (subject, rng.choice(_PHONE_FIRST).format(v=phones[0])),
        (subject, rng.choice(_DRINK_SWITCH).format(v=drinks[1], prev=drinks[0])),
        (subject, rng.choice(_PHONE_SWITCH).format(v=phones[1], prev=phones[0])),
    ]
    start = datetime(2022, 2, 7) + timedelta(days=rng.randrange(0, 200))
    messages, t = _sessions(rng, start, statements, friend)
    later = t[3] + timedelta(days=60)
    s = subject
    drink = Case(
        id=f"mix-{index:02d}-drink",
        subject=s,
        aspect="prefs-drink",
        values=drinks,
        starts=[t[0], t[2]],
        conversation=Conversation(messages=list(messages)),
        message_period={"S0:2": 0, "S2:2": 1},
        questions=[
            Question(f"What does {s} drink now?", "present", 1, drinks[1]),
            Question(f"What did {s} drink before switching to {drinks[1]}?", "past", 0, drinks[0]),
            # between the phone's switch and now: the phone's switch left the drink
            Question(
                f"What does {s} drink now?", "as_of", 1, drinks[1], as_of=_middle(t[3], later)
            ),
            Question(f"What does {s} drink now?", "as_of", 0, drinks[0], as_of=_middle(t[1], t[2])),
        ],
    )
    phone = Case(
        id=f"mix-{index:02d}-phone",
        subject=s,
        aspect="prefs-phone",
        values=phones,
        starts=[t[1], t[3]],
        conversation=Conversation(messages=list(messages)),
        message_period={"S1:2": 0, "S3:2": 1},
        questions=[
            Question(f"What phone does {s} use now?", "present", 1, phones[1]),
            # between the drink's switch and the phone's: the drink's switch left the phone
            Question(
                f"What phone does {s} use now?", "as_of", 0, phones[0], as_of=_middle(t[2], t[3])
            ),
        ],
    )
    return [drink, phone]


def make_species_case(index: int, rng: random.Random) -> Case:
    """A pet of one species, one of another, then the first ended by its species only."""
    subject, friend = rng.sample(PEOPLE, 2)
    (k0, n0), (k1, n1) = rng.sample(_PETS, 2)
    statements = [
        (subject, f"I have a {k0} named {n0}."),
        (subject, f"We adopted another pet, I have a {k1} named {n1} now as well."),
        (subject, rng.choice(_PET_ENDS).format(k=k0)),
    ]
    start = datetime(2022, 3, 7) + timedelta(days=rng.randrange(0, 200))
    messages, t = _sessions(rng, start, statements, friend)
    s = subject
    present = Question(f"What pets does {s} have now?", "present", 2, n1, answers=(n1,))
    before = Question(f"What pets does {s} have now?", "as_of", 1, n0, answers=(n0, n1))
    before.as_of = _middle(t[1], t[2])
    return Case(
        id=f"mix-{index:02d}-species",
        subject=s,
        aspect="pet-species",
        values=[f"a {k0} named {n0}", f"a {k1} named {n1}", f"no {k0}"],
        starts=t,
        conversation=Conversation(messages=messages),
        message_period={"S0:2": 0, "S1:2": 1, "S2:2": 2},
        questions=[present, before],
    )


def generate_mixed(count: int = 6, seed: int = 38) -> list[Case]:
    """``count`` conversations of each shape (a ``prefs`` one gives two cases)."""
    rng = random.Random(seed)
    cases: list[Case] = []
    for i in range(count):
        cases += make_prefs_cases(i, rng)
        cases.append(make_species_case(i, rng))
    return cases
