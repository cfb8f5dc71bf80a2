"""The LLM layer: one async path to any litellm model, with clear failures.

Configure a model with ``LLM_MODEL`` / ``LLM_API_KEY`` / ``LLM_API_BASE`` (or
``RecallConfig(llm_model=...)``, or ``LLMConfig`` per call):

    OpenAI                 LLM_MODEL=openai/gpt-4o-mini   LLM_API_KEY=sk-...
    Ollama (local)         LLM_MODEL=ollama/llama3        LLM_API_BASE=http://localhost:11434
    OpenAI-compatible      LLM_MODEL=openai/<served-name> LLM_API_BASE=http://host:8000/v1
                           LLM_API_KEY=<key or anything>

litellm is imported on the first call, never by ``import recall_engine``, and
with its remote price-map fetch switched off.
"""

from recall_engine.llm.client import Completion, LLMClient
from recall_engine.llm.config import LLMConfig
from recall_engine.llm.errors import PAYMENT_REQUIRED_DETAIL, PAYMENT_REQUIRED_STATUS
from recall_engine.llm.usage import LLMUsage, UsageTally, record_usage, track_usage

__all__ = [
    "PAYMENT_REQUIRED_DETAIL",
    "PAYMENT_REQUIRED_STATUS",
    "Completion",
    "LLMClient",
    "LLMConfig",
    "LLMUsage",
    "UsageTally",
    "record_usage",
    "track_usage",
]
