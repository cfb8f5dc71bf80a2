"""Offline answers from a subject's facts: which aspect a question asks about, and
what held now, then, or before a change."""

from datetime import datetime

from recall_engine.core.facts import Fact, FactRef
from recall_engine.llm.answer_facts import asked_family, fact_answer
from recall_engine.read.periods import Interval

JAN23, MAR24, JUN24 = datetime(2023, 1, 5), datetime(2024, 3, 1), datetime(2024, 6, 1)


def _fact(pred, obj, family, start, until=None, chunk="c", context=""):
    return Fact(
        id=f"{pred}-{obj}",
        subject="Ann",
        subject_id="ann",
        predicate=pred,
        object=obj,
        object_id=obj.lower(),
        family=family,
        context=context,
        valid_from=start,
        valid_until=until,
        superseded_by=(FactRef(id="x", predicate="moved_to", object="Paris"),) if until else (),
        current=until is None,
        chunk_id=chunk,
    )


MOVE = "I moved to Paris last week, I live in Montmartre now."
FACTS = [
    _fact("lives_in", "Lyon", "home", JAN23, MAR24, "c1"),
    _fact("moved_to", "Paris", "home", MAR24, None, "c2", MOVE),
    _fact("lives_in", "Montmartre", "home", MAR24, None, "c2", MOVE),
    _fact("works_as", "nurse", "job", JAN23, JUN24, "c3"),
    _fact("is_a", "software developer", "job", JUN24, None, "c4"),
]


def test_the_asked_family_covers_the_question_words():
    assert asked_family("Where does Ann live?", FACTS, []) == "home"
    assert asked_family("What is Ann's job?", FACTS, []) == "job"
    assert asked_family("Who does Ann have lunch with at work?", FACTS, []) is None
    assert asked_family("Which city does Ann live in?", FACTS, [], {"live", "lyon"}) == "home"


def test_now_names_the_statement_since_when_and_what_it_replaced():
    answer = fact_answer("Where does Ann live?", FACTS, reading="present")
    assert answer is not None
    assert answer.text == "Paris (Montmartre), since March 2024; before that Lyon"
    job = fact_answer("What is Ann's job?", FACTS, reading="present")
    assert job is not None and job.text == "software developer, since June 2024; before that nurse"


def test_as_of_answers_what_held_then():
    answer = fact_answer("Where does Ann live?", FACTS, reading="as_of", as_of=datetime(2023, 6, 1))
    assert answer is not None and answer.text == "Lyon, since January 2023 (as of 2023-06-01)"


def test_past_answers_the_period_asked_about():
    before = fact_answer("Where Ann live", FACTS, reading="past", interval=Interval(None, MAR24))
    assert before is not None and before.text == "Lyon (from January 2023 until March 2024)"
    year = Interval(datetime(2023, 1, 1), datetime(2024, 1, 1))
    job = fact_answer("What Ann's job", FACTS, reading="past", interval=year)
    assert job is not None and job.text.startswith("nurse")


def test_no_answer_when_the_facts_only_repeat_the_question():
    during = Interval(JAN23, MAR24)
    assert fact_answer("Where did Ann live in Lyon", FACTS, reading="past", interval=during) is None
    assert fact_answer("What does Ann think of the food?", FACTS, reading="present") is None


PETS = [
    _fact("has_pet", "Biscuit", "pet", JAN23, None, "p1"),
    _fact("has_pet", "Shadow", "pet", MAR24, None, "p2"),
    _fact("has_pet", "Kiwi", "pet", JUN24, None, "p3"),
]


def test_several_pets_are_all_held_now_and_before_a_later_one():
    now = fact_answer("What pets does Ann have?", PETS, reading="present")
    assert now is not None and {"Biscuit", "Shadow", "Kiwi"} <= set(
        now.text.split(", ")[0].split(" and ")
    )
    before = fact_answer(
        "What pets did Ann have?", PETS, reading="past", interval=Interval(None, JUN24)
    )
    assert before is not None and [f.object for f in before.facts] == ["Biscuit", "Shadow"]


def test_the_first_of_several_values_is_what_held_before_the_second():
    from recall_engine.read.periods import asked_interval

    assert asked_interval("first", None, PETS) == Interval(None, MAR24)
    first = fact_answer(
        "What pet did Ann have?", PETS, reading="past", interval=Interval(None, MAR24)
    )
    assert first is not None and [f.object for f in first.facts] == ["Biscuit"]
