"""Adapters that put recall-engine behind other frameworks' retriever interfaces.

- ``recall_engine.integrations.langchain.RecallRetriever``: a LangChain
  ``BaseRetriever`` (``pip install recall-engine[langchain]``).
- ``recall_engine.integrations.llamaindex.RecallRetriever``: a LlamaIndex
  ``BaseRetriever`` (``pip install recall-engine[llamaindex]``).

Each wraps an embedded ``RecallEngine`` or a remote one (``RecallEngine.connect``)
and keeps every result's provenance in the document's or node's metadata. Nothing
here is imported by ``import recall_engine``; each module imports its framework.
"""
