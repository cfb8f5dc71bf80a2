"""The offline answer of GRAPH_REPORT: the report's text, each community with its evidence.

The report (``retrievers.graph_report``) is computed from the graph, so offline it
is the answer as it stands: no sentence is extracted. Each community's description
is one evidence sentence citing the chunk it quotes.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from recall_engine.llm.completion import Answer, AnswerSentence
from recall_engine.llm.usage import LLMUsage


def report_answer(report: Mapping[str, Any]) -> Answer:
    """The extractive ``Answer`` of a graph report (``metadata["graph_report"]``)."""
    evidence = [
        AnswerSentence(
            text=f"Community {group['id']}: {group['about']}",
            role="summary",
            chunk_id=group.get("chunk_id"),
        )
        for group in report.get("communities", ())
    ]
    return Answer(
        text=str(report.get("text", "")),
        answer_mode="extractive",
        usage=LLMUsage().as_dict(),
        answer_type="report",
        evidence=evidence,
    )
