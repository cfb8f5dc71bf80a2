"""Documents that state a history inside themselves, for ``bench.changes``.

Each case is one short profile (a ``Document`` with one ``created_at``) in which a
person changes home or job one to five times; some moves name their year ("In 2019
... moved to ..."), others only follow in reading order ("Later ..."). Questions ask
where they live (or what they do) now and before each later value (no ``as_of``:
the document was written after all of it, so memory knew none of it earlier).
Names and wording are this module's own.
"""

from __future__ import annotations

import random
from datetime import datetime

from bench._changes_data import CITIES, JOBS, PEOPLE, Case, Question
from recall_engine import Conversation, Document

_HOME = {
    "first": "{s} lived in {v} for many years.",
    "dated": "In {y} {s} moved to {v}.",
    "undated": "Later {s} moved to {v}.",
    "present": "Where does {s} live now?",
    "before": "Where did {s} live before {next}?",
}
_JOB = {
    "first": "{s} worked as {a} {v} after school.",
    "dated": "In {y} {s} became {a} {v}.",
    "undated": "After that {s} became {a} {v}.",
    "present": "What is {s}'s job now?",
    "before": "What was {s}'s job before becoming {an} {next}?",
}


def make_document_case(index: int, rng: random.Random, changes: int) -> Case:
    """One profile with ``changes`` changes of home (even index) or job (odd)."""
    subject = f"{rng.choice(PEOPLE)} {rng.choice(['Varga', 'Lind', 'Okafor', 'Moreau'])}"
    aspect, wording = ("home", _HOME) if index % 2 == 0 else ("job", _JOB)
    values = rng.sample(CITIES if aspect == "home" else JOBS, changes + 1)
    first_year = 2008 + rng.randrange(0, 4)
    years = sorted(rng.sample(range(first_year + 1, 2023), changes))
    dated = [rng.random() < 0.6 for _ in years]
    first = wording["first"].format(s=subject, v=values[0], a=_article(values[0]))
    sentences = [f"Profile of {subject}.", first]
    for value, year, has_year in zip(values[1:], years, dated, strict=True):
        key = "dated" if has_year else "undated"
        sentences.append(wording[key].format(s=subject, v=value, y=year, a=_article(value)))
    document = Document(text=" ".join(sentences), created_at=datetime(2024, 6, 1))
    starts = [datetime(first_year, 1, 1)] + [datetime(y, 1, 1) for y in years]
    case = Case(
        id=f"doc-{index:02d}",
        subject=subject,
        aspect=f"document:{aspect}",
        values=values,
        starts=starts,
        conversation=Conversation(messages=[]),
        document=document,
    )
    last = len(values) - 1
    ask = case.questions.append
    ask(Question(wording["present"].format(s=subject), "present", last, values[last]))
    for period in range(last):
        nxt = values[period + 1]
        text = wording["before"].format(s=subject, next=nxt, an=_article(nxt))
        ask(Question(text, "past", period, values[period]))
    return case


def _article(word: str) -> str:
    return "an" if word[:1].lower() in "aeiou" else "a"


def generate_documents(count: int = 10, seed: int = 37) -> list[Case]:
    """``count`` profiles, changes cycling 1..5, reproducible from ``seed``."""
    rng = random.Random(seed)
    return [make_document_case(i, rng, 1 + i % 5) for i in range(count)]
