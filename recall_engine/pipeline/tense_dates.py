"""The explicit date a question names, as the tense stage reads it.

"Where did Ann live on 6 March 2023?" asks about that day: the tense stage answers it
from what held then (``pipeline.tense``). A relative phrase ("last month", "on 6
March") depends on when it is asked and is left to the TEMPORAL retriever.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from recall_engine.read.periods import Interval
from recall_engine.read.time_query import EARLIEST, query_interval

_ELSEWHEN = timedelta(days=400)
"""How far apart the two reference times are that tell an explicit date from a
relative one (``asked_date``): a different year, month and weekday."""


def asked_date(question: str, as_of: datetime | None) -> tuple[Interval, str] | None:
    """The explicit date or period ``question`` names ("on 6 March 2023", "in February
    2023", "on 2023-03-06", "before 2022"), read by the TEMPORAL retriever's parser
    (``read.time_query.query_interval``), and the words it was read from. Explicit:
    read the same against ``as_of`` (else now) and a time far from it; a relative
    phrase ("last month", "on 6 March") is not one.

    Args:
        question: The question as asked.
        as_of: The time the question is asked as of; None: now.

    Returns:
        The interval (open on a side the question leaves open) and its words, or None.
    """
    reference = as_of or datetime.now(UTC).replace(tzinfo=None)  # naive UTC, as facts' times
    read = query_interval(question, reference)
    if read is None or query_interval(question, reference - _ELSEWHEN) != read:
        return None
    start = None if read.start == EARLIEST else read.start
    return Interval(start, read.end), read.phrase
