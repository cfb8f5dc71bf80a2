"""A seeded generator of conversations with count, list and total questions, for ``bench.broad``.

Each conversation is two friends chatting over dated sessions. The subject states
the items of several kinds one turn at a time, spread over the months: pets
adopted, cities visited, races run, books read, instruments taken up, kilometres
run, money spent, gym visits. Distractors sit beside them: the friend's own items,
wishes and plans ("Next year I want to run ..."), items mentioned again (counted
once), small talk, and, for some pets, a later turn saying the pet died or was
given away (gone for a question about now). Every question has an exact gold
answer: a count, a total or the set of items.

All names and wording are this module's own (people and cities are shared with
``bench._changes_data``).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from bench._changes_data import CITIES, PEOPLE
from recall_engine import Conversation, Message

SPECIES = ["cat", "kitten", "puppy", "beagle", "parrot", "hamster", "rabbit", "tortoise", "corgi"]
PET_NAMES = [
    "Pepper",
    "Biscuit",
    "Comet",
    "Clover",
    "Nugget",
    "Shadow",
    "Waffles",
    "Mochi",
    "Pixel",
    "Juniper",
    "Ziggy",
    "Marble",
    "Tofu",
    "Bramble",
    "Pickles",
    "Sprout",
]
TITLES = [
    "The Salt Orchard",
    "Winter Lanterns",
    "A Map of Small Rivers",
    "The Glass Harbour",
    "Nine Quiet Rooms",
    "The Copper Season",
    "Letters from Ashford",
    "The Long Meadow",
    "Paper Moons",
    "The Last Ferry",
    "Cedar and Smoke",
    "The Hollow Tide",
]
INSTRUMENTS = ["guitar", "piano", "violin", "cello", "ukulele", "flute", "saxophone", "drums"]
RACES = ["marathon", "half marathon", "10k"]
THINGS = ["a bike helmet", "concert tickets", "a new lamp", "hiking boots", "a rain jacket"]
SMALL_TALK = [
    "Work has been busy this week.",
    "The weather turned cold again.",
    "Did you watch the game last night?",
    "I need more sleep honestly.",
    "Traffic was terrible this morning.",
    "We should catch up over coffee soon.",
]


@dataclass
class Question:
    """One question and its exact gold answer."""

    text: str
    ask: str
    gold: int | float | list[str]
    topic: str


@dataclass
class Case:
    """One conversation, its subject and its questions."""

    name: str
    subject: str
    friend: str
    conversation: Conversation
    questions: list[Question] = field(default_factory=list)


class _Chat:
    """Turns in time order, one per call, a day or more apart."""

    def __init__(self, rng: random.Random, subject: str, friend: str) -> None:
        self.rng, self.subject, self.friend = rng, subject, friend
        self.time = datetime(2023, 1, 2, 9, 0) + timedelta(days=rng.randrange(200))
        self.turns: list[tuple[str, str, datetime]] = []

    def say(self, speaker: str, text: str) -> None:
        self.time += timedelta(days=self.rng.randrange(1, 12), minutes=self.rng.randrange(300))
        self.turns.append((speaker, text, self.time))
        if self.rng.random() < 0.5:
            other = self.friend if speaker == self.subject else self.subject
            self.time += timedelta(minutes=3)
            self.turns.append((other, self.rng.choice(SMALL_TALK), self.time))


def _pets(chat: _Chat, rng: random.Random, case: Case) -> list[tuple[str, str]]:
    n = rng.randint(1, 4)
    names = rng.sample(PET_NAMES, n + 1)
    kept = []
    forms = [
        "I adopted a {s} named {n} last weekend!",
        "We got a {s} called {n} from the shelter.",
        "Meet {n}, my new {s}!",
        "I brought home a little {s} named {n} today.",
    ]
    for name in names[:n]:
        species = rng.choice(SPECIES)
        chat.say(case.subject, rng.choice(forms).format(s=species, n=name))
        kept.append((name, species))
    chat.say(case.friend, f"My {rng.choice(SPECIES)} {names[n]} would love to meet them.")
    again = rng.choice(kept)
    chat.say(case.subject, f"My {again[1]} {again[0]} chewed my slippers again.")
    return kept


def _places(chat: _Chat, rng: random.Random, case: Case) -> list[str]:
    cities = rng.sample(CITIES, 6)
    n = rng.randint(2, 4)
    forms = [
        "We visited {c} last month, what a trip.",
        "I just got back from a week in {c}.",
        "I travelled to {c} for a conference.",
        "Spent the long weekend in {c} with my sister, we went everywhere.",
    ]
    for city in cities[:n]:
        chat.say(case.subject, rng.choice(forms).format(c=city))
    chat.say(case.subject, f"Someday I want to visit {cities[n]}.")
    chat.say(case.friend, f"I went to {cities[n + 1]} in spring.")
    return cities[:n]


def _races(chat: _Chat, rng: random.Random, case: Case) -> list[str]:
    cities = rng.sample(CITIES, 4)
    n = rng.randint(1, 3)
    done = []
    for city in cities[:n]:
        race = rng.choice(RACES)
        form = rng.choice(["I ran the {c} {r} on Sunday.", "I finished the {c} {r} this morning!"])
        chat.say(case.subject, form.format(c=city, r=race))
        done.append(f"{city} {race}")
    chat.say(case.subject, f"Next year I want to run the {cities[n]} marathon too.")
    return done


def _books(chat: _Chat, rng: random.Random, case: Case) -> list[str]:
    titles = rng.sample(TITLES, 5)
    n = rng.randint(2, 4)
    for title in titles[:n]:
        form = rng.choice(
            ['I finished the novel "{t}" last night.', 'I just read the book "{t}", loved it.']
        )
        chat.say(case.subject, form.format(t=title))
    chat.say(case.friend, f'I am reading the book "{titles[n]}" now.')
    return titles[:n]


def _instruments(chat: _Chat, rng: random.Random, case: Case) -> list[str]:
    chosen = rng.sample(INSTRUMENTS, rng.randint(1, 3))
    for instrument in chosen:
        form = rng.choice(
            ["I started learning the {i} this month.", "I play the {i} every evening now."]
        )
        chat.say(case.subject, form.format(i=instrument))
    return chosen


def _km(chat: _Chat, rng: random.Random, case: Case) -> int:
    runs = [rng.randint(3, 21) for _ in range(rng.randint(2, 4))]
    for km in runs:
        chat.say(
            case.subject,
            rng.choice(["I ran {k} km today.", "Did a {k} km run along the river."]).format(k=km),
        )
    chat.say(case.friend, f"I ran {rng.randint(3, 15)} km yesterday.")
    return sum(runs)


def _spent(chat: _Chat, rng: random.Random, case: Case) -> int:
    spends = [rng.randint(2, 30) * 10 for _ in range(rng.randint(2, 3))]
    for amount, thing in zip(spends, rng.sample(THINGS, len(spends)), strict=False):
        chat.say(case.subject, f"I spent ${amount} on {thing}.")
    return sum(spends)


def _gym(chat: _Chat, rng: random.Random, case: Case) -> int:
    n = rng.randint(2, 5)
    for _ in range(n):
        chat.say(
            case.subject,
            rng.choice(["I went to the gym after work.", "Back at the gym this morning."]),
        )
    chat.say(case.friend, "I go to the gym on Mondays.")
    return n


def generate(count: int = 8, seed: int = 40) -> list[Case]:
    """``count`` conversations, each with 9 to 11 questions with exact gold answers."""
    rng = random.Random(seed)
    cases = []
    for n in range(count):
        subject, friend = rng.sample(PEOPLE, 2)
        case = Case(f"broad-{n}", subject, friend, Conversation(messages=[]))
        chat = _Chat(rng, subject, friend)
        steps = [_pets, _places, _races, _books, _instruments, _km, _spent, _gym]
        rng.shuffle(steps)
        found = {step.__name__: step(chat, rng, case) for step in steps}
        pets = found["_pets"]
        gone = None
        if len(pets) > 1 and rng.random() < 0.5:
            gone = rng.choice(pets)[0]
            chat.say(
                subject,
                rng.choice(
                    [
                        f"Sadly {gone} passed away last week.",
                        f"We gave {gone} to my aunt, she has a big garden.",
                    ]
                ),
            )
        s = subject
        qs = [
            Question(
                f"How many pets does {s} have?" if gone is None else f"How many pets has {s} had?",
                "count",
                len(pets),
                "pets",
            ),
            Question(f"List all the pets {s} has.", "list", [p for p, _ in pets], "pets"),
            Question(f"Which cities has {s} visited?", "list", found["_places"], "places"),
            Question(
                f"How many different cities has {s} been to?",
                "count",
                len(found["_places"]),
                "places",
            ),
            Question(f"Which races has {s} run?", "list", found["_races"], "races"),
            Question(f"How many books has {s} read?", "count", len(found["_books"]), "books"),
            Question(
                f"What are all the instruments {s} plays?",
                "list",
                found["_instruments"],
                "instruments",
            ),
            Question(f"How many km did {s} run in total?", "total", found["_km"], "km"),
            Question(f"How much did {s} spend in total?", "total", found["_spent"], "money"),
            Question(f"How many times did {s} go to the gym?", "count", found["_gym"], "gym"),
        ]
        if gone is not None:
            qs.append(
                Question(f"How many pets does {s} have now?", "count", len(pets) - 1, "pets now")
            )
        case.questions = qs
        case.conversation = Conversation(
            messages=[
                Message(id=f"{case.name}-{i}", speaker=sp, text=text, timestamp=ts)
                for i, (sp, text, ts) in enumerate(chat.turns)
            ]
        )
        cases.append(case)
    return cases
