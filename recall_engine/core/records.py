"""Records: what BROAD reads for a question about a whole scope, and how it was asked.

A question about everything at once (a count, a total, a complete list, the one
mentioned most) is answered from every record of its kind, not from the passages
most like it. BROAD turns the graph and the chunks into ``Record``s (one item of
the asked kind, with the sentence and chunk that state it), deduplicated by
entity resolution, in time order; ``RecordSet`` is all of them plus how the
question was read. The offline answer (``recall_engine.llm.answer_records``)
counts, sums or lists them exactly; ``only_context=True`` returns them all.
"""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field

from recall_engine.core.models import SourceRef


class Ask(StrEnum):
    """What an aggregation question wants of the records."""

    COUNT = "count"
    """How many distinct items ("How many pets does Ann have?")."""
    LIST = "list"
    """Every distinct item ("List all the cities Ann visited")."""
    TOTAL = "total"
    """The sum of the amounts stated ("How many km did Ann run in total?")."""
    TIMES = "times"
    """How many separate statements of one happening ("How many times did Ann ...?")."""
    MOST = "most"
    """The item stated most often ("Which sport does Ann mention the most?")."""


class Record(BaseModel):
    """One item of the asked kind and where it is stated."""

    model_config = ConfigDict(frozen=True)

    item: str = Field(description="The item as first named (an entity's name when resolved).")
    key: str = Field(description="What deduplicates it: the entity id, else the folded name.")
    sentence: str = Field(description="The sentence stating it (its evidence).")
    time: str | None = Field(default=None, description="ISO time of the statement, if dated.")
    amount: float | None = Field(default=None, description="TOTAL: the amount stated.")
    unit: str | None = Field(default=None, description="TOTAL: the amount's unit as written.")
    current: bool = Field(
        default=True, description="False: a later statement ended it (a fact's validity)."
    )
    ended_by: str | None = Field(default=None, description="The sentence that ended it.")
    mentions: int = Field(default=1, ge=1, description="Statements of this item (MOST ranks).")
    source: SourceRef = Field(description="The chunk stating it.")


class RecordSet(BaseModel):
    """Every record of one aggregation question, in time order, and how it was read."""

    model_config = ConfigDict(frozen=True)

    ask: Ask
    kind: str = Field(description="The asked kind, singular ('pet', 'city'); '' when none.")
    subjects: tuple[str, ...] = Field(default=(), description="Whose records ('Ann').")
    current_only: bool = Field(
        default=False, description="The question asks about now: ended items are not counted."
    )
    records: tuple[Record, ...] = ()
    how: str = Field(default="records", description="How the answer was reached.")

    def counted(self) -> list[Record]:
        """The records the answer counts or lists: current ones for a question about now."""
        return [r for r in self.records if r.current or not self.current_only]
