"""What the tense stage read of a question and found in memory (``Tense``)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime

from recall_engine.core.facts import Fact
from recall_engine.core.hits import Hit
from recall_engine.pipeline.tense_dates import AskedDate
from recall_engine.read.periods import Interval
from router.tense import TenseReading


@dataclass
class Tense:
    """What the stage read and found: the reading, the subject's facts, and the
    interval the question asks about (a past period, or one up to now)."""

    reading: TenseReading
    as_of: datetime | None = None
    question: str = ""
    facts: list[Fact] = field(default_factory=list)
    interval: Interval | None = None
    dated: AskedDate | None = None
    """The date or period the question names and its words (``tense_dates``)."""
    family: str | None = None
    """The aspect a question about now asks about, when the subject's facts tell it."""
    aspect: list[Fact] | None = None
    """The facts of ``family`` that answer, when the question narrows them to a kind
    (``of_kind``) or names the family only by a habit (``habit_family``); None:
    every fact of ``family``."""
    answer_hits: list[Hit] = field(default_factory=list)
    """The hits of the time asked about (an offline answer reads these): for now,
    those no later statement of the same aspect outdates; for a past question, those
    of the period; empty when nothing tells them apart."""

    def offline_question(self) -> str | None:
        """A past question less its time cues, for an answer without an LLM: its hits
        are ranked for the period, and "when she lived in Lyon" names the period, not
        the answer. None for other readings and for a past question whose period
        was not found ("When did Ann move?" keeps its words)."""
        if not self.asks_period or self.interval is None:
            return None
        return self.bare()

    def bare(self, question: str | None = None) -> str:
        """``question`` (default: the one asked) less its time cues and the date it
        names: what it asks for."""
        out = self.reading.without_cues(self.question if question is None else question)
        if self.dated is not None:
            out = re.sub(rf"\s*\b{re.escape(self.dated.words)}\b", " ", out, flags=re.IGNORECASE)
        return re.sub(r"\s+", " ", out).strip()

    @property
    def asks_period(self) -> bool:
        """Whether hits are ranked, and the answer made, for a period: a past
        question's, and with ``as_of`` one whose period was found (what held then,
        among what was said by ``as_of``); a present question's that names a period
        up to now ("since March 2023"); else for now (or ``as_of``)."""
        if self.reading.reading == "present":
            return self.interval is not None
        if self.reading.reading != "past":
            return False
        return self.as_of is None or self.interval is not None

    @property
    def name(self) -> str:
        """``as_of`` when a time was given, else the question's reading."""
        return "as_of" if self.as_of is not None else self.reading.reading

    def metadata(self) -> dict[str, object]:
        """``metadata["temporal"]``'s reading keys."""
        meta = self.reading.metadata()
        meta["reading"] = self.name
        meta["as_of"] = self.as_of.isoformat() if self.as_of else None
        if self.interval is not None and meta["period"] is None and self.dated is not None:
            meta["period"] = {"kind": "date", "anchor": self.dated.words}
        if self.interval is not None and meta["period"] is not None:
            meta["period"].update(self.interval.metadata())
        return meta
