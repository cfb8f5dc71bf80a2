"""``RecallRetriever``: recall-engine as a LangChain retriever (``langchain-core`` 1.x).

    from recall_engine import RecallEngine
    from recall_engine.integrations.langchain import RecallRetriever

    retriever = RecallRetriever(RecallEngine(), query_type="CHUNKS", top_k=5)
    docs = await retriever.ainvoke("Where was Einstein born?")
    docs[0].metadata["sources"]        # provenance, in rank order

Each result becomes a ``Document`` whose ``page_content`` is the result's text and
whose ``metadata`` holds its provenance (``result_metadata``: ``sources``,
``search_type``, ``dataset_id``, ``dataset_name``, ``score``, ...). ``invoke`` works
with or without a running event loop (inside one it blocks that loop for the call;
use ``ainvoke`` in async code).
"""

from __future__ import annotations

from typing import Any

from pydantic import ConfigDict, Field, field_validator

from recall_engine.core.models import RecallResult
from recall_engine.integrations._common import (
    Recaller,
    check_engine,
    check_options,
    recall_entries,
    result_id,
    result_metadata,
    result_text,
    run_sync,
)

try:
    from langchain_core.callbacks import (
        AsyncCallbackManagerForRetrieverRun,
        CallbackManagerForRetrieverRun,
    )
    from langchain_core.documents import Document
    from langchain_core.retrievers import BaseRetriever
except ImportError as exc:  # pragma: no cover - depends on the environment
    raise ImportError(
        "recall_engine.integrations.langchain needs langchain-core: "
        "pip install 'recall-engine[langchain]'."
    ) from exc


_OWN_OPTIONS = ("query_type", "top_k", "datasets")
"""recall() options that are the retriever's own fields, also when in ``recall_options``."""


class RecallRetriever(BaseRetriever):
    """A LangChain retriever over a ``RecallEngine`` or ``RecallEngine.connect(...)``.

    Args:
        engine: the embedded or remote engine to recall from.
        query_type: the search type (None: the router picks per query).
        top_k: results per query.
        datasets: dataset names to search (None: every dataset the user can read).
        **recall_options: any other ``recall()`` keyword arguments (``only_context``,
            ``metadata_filters``, ``session_id``, ``user``, ...); kept in
            ``recall_options`` (a ``recall_options`` dict may also hold ``query_type``,
            ``top_k`` and ``datasets``, which go to their fields).

    Raises:
        TypeError: ``engine`` is not an engine, an unknown recall option, or an
            option given both as a field and in ``recall_options``.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    engine: Any
    query_type: Any = None
    top_k: int = 15
    datasets: list[str] | None = None
    recall_options: dict[str, object] = Field(default_factory=dict)

    def __init__(self, engine: Any = None, /, **fields: Any) -> None:
        if engine is not None:
            fields["engine"] = engine
        options = dict(fields.pop("recall_options", None) or {})
        for name in [n for n in fields if n not in type(self).model_fields]:
            options[name] = fields.pop(name)  # recall() options given as keywords
        for name in [n for n in _OWN_OPTIONS if n in options]:  # else ignored silently
            if name in fields:
                raise TypeError(f"{name} is given twice; pass it once, as {name}=...")
            fields[name] = options.pop(name)
        fields["recall_options"] = check_options(options)
        super().__init__(**fields)

    @field_validator("engine")
    @classmethod
    def _engine(cls, value: object) -> Recaller:
        return check_engine(value)

    def _get_relevant_documents(
        self, query: str, *, run_manager: CallbackManagerForRetrieverRun
    ) -> list[Document]:
        return run_sync(self._recall(query))

    async def _aget_relevant_documents(
        self, query: str, *, run_manager: AsyncCallbackManagerForRetrieverRun
    ) -> list[Document]:
        return await self._recall(query)

    async def _recall(self, query: str) -> list[Document]:
        results = await recall_entries(
            self.engine,
            query,
            self.query_type,
            top_k=self.top_k,
            datasets=self.datasets,
            options=self.recall_options,
        )
        return [as_document(entry) for entry in results]


def as_document(entry: RecallResult) -> Document:
    """One recall result as a LangChain ``Document`` with its provenance."""
    return Document(
        page_content=result_text(entry), metadata=result_metadata(entry), id=result_id(entry)
    )
