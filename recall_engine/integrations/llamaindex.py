"""``RecallRetriever``: recall-engine as a LlamaIndex retriever (``llama-index-core`` 0.14).

    from llama_index.core.query_engine import RetrieverQueryEngine
    from recall_engine import RecallEngine
    from recall_engine.integrations.llamaindex import RecallRetriever

    retriever = RecallRetriever(RecallEngine(), query_type="CHUNKS", top_k=5)
    query_engine = RetrieverQueryEngine.from_args(retriever, llm=...)
    nodes = await retriever.aretrieve("Where was Einstein born?")
    nodes[0].node.metadata["sources"]  # provenance, in rank order

Each result becomes a ``NodeWithScore``: a ``TextNode`` with the result's text and
its provenance in ``metadata`` (``result_metadata``: ``sources``, ``search_type``,
``dataset_id``, ``dataset_name``, ``score``, ...), and the result's score. Only
``document_name`` and ``dataset_name`` of it are shown to the LLM and embedders; the
rest is kept for the application. ``retrieve`` works with or without a running event
loop (inside one it blocks that loop for the call; use ``aretrieve`` in async code).
"""

from __future__ import annotations

from recall_engine.core.models import RecallResult
from recall_engine.core.search_types import SearchType
from recall_engine.integrations._common import (
    check_engine,
    check_options,
    recall_entries,
    result_id,
    result_metadata,
    result_score,
    result_text,
    run_sync,
)

try:
    from llama_index.core.base.base_retriever import BaseRetriever
    from llama_index.core.callbacks import CallbackManager
    from llama_index.core.schema import NodeWithScore, QueryBundle, TextNode
except ImportError as exc:  # pragma: no cover - depends on the environment
    raise ImportError(
        "recall_engine.integrations.llamaindex needs llama-index-core: "
        "pip install 'recall-engine[llamaindex]'."
    ) from exc

SHOWN = ("document_name", "dataset_name")
"""The metadata keys a node shows to the LLM and to embedders."""


class RecallRetriever(BaseRetriever):
    """A LlamaIndex retriever over a ``RecallEngine`` or ``RecallEngine.connect(...)``.

    Args:
        engine: the embedded or remote engine to recall from.
        query_type: the search type (None: the router picks per query).
        top_k: results per query.
        datasets: dataset names to search (None: every dataset the user can read).
        callback_manager: LlamaIndex callbacks (default: ``Settings.callback_manager``).
        **recall_options: any other ``recall()`` keyword arguments (``only_context``,
            ``metadata_filters``, ``session_id``, ``user``, ...).

    Raises:
        TypeError: ``engine`` is not an engine, or an unknown recall option.
    """

    def __init__(
        self,
        engine: object,
        *,
        query_type: SearchType | str | None = None,
        top_k: int = 15,
        datasets: list[str] | None = None,
        callback_manager: CallbackManager | None = None,
        **recall_options: object,
    ) -> None:
        self.engine = check_engine(engine)
        self.query_type = query_type
        self.top_k = top_k
        self.datasets = datasets
        self.recall_options = check_options(recall_options)
        super().__init__(callback_manager=callback_manager)

    def _retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        return run_sync(self._recall(query_bundle.query_str))

    async def _aretrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        return await self._recall(query_bundle.query_str)

    async def _recall(self, query: str) -> list[NodeWithScore]:
        results = await recall_entries(
            self.engine,
            query,
            self.query_type,
            top_k=self.top_k,
            datasets=self.datasets,
            options=self.recall_options,
        )
        return [as_node(entry) for entry in results]


def as_node(entry: RecallResult) -> NodeWithScore:
    """One recall result as a LlamaIndex ``NodeWithScore`` with its provenance."""
    metadata = result_metadata(entry)
    hidden = [key for key in metadata if key not in SHOWN]
    node = TextNode(
        text=result_text(entry),
        metadata=metadata,
        excluded_llm_metadata_keys=hidden,
        excluded_embed_metadata_keys=hidden,
    )
    if (identifier := result_id(entry)) is not None:
        node.id_ = identifier
    return NodeWithScore(node=node, score=result_score(entry))
