"""Every error recall-engine raises, in one tree.

Misuse errors say what the caller got wrong and how to fix it; they also
subclass the builtin a Python user would catch (``ValueError``, ``TypeError``,
``NotImplementedError``). Runtime failures come from a store or a provider and
are worth retrying or reporting. HTTP status codes are mapped in the server,
not here.

    RecallEngineError
    ├── UsageError                       the caller must change the call
    │   ├── InvalidInputError (ValueError)        bad data, name, path, option
    │   │   ├── InvalidFieldError         a Document/Message/Conversation field
    │   │   ├── UnsupportedFileTypeError
    │   │   ├── InputTooLargeError        an item or query over its size budget
    │   │   ├── DatasetNotFoundError
    │   │   ├── UserNotFoundError         a user= that the tenant does not have
    │   │   └── ConfigError               a configuration value (argument or env var)
    │   ├── UnknownArgumentError (TypeError)  a keyword argument the call does not take
    │   ├── UnsupportedSearchTypeError (ValueError)  disabled search type
    │   ├── SearchTypeNotImplementedError (NotImplementedError)
    │   ├── EmbeddingModelMismatchError (ValueError)  store built with another model
    │   ├── RecallPreconditionError       recall() before anything was remembered
    │   ├── LLMNotConfiguredError         a search type that needs an LLM, without one
    │   ├── InvalidAgenticDatasetScope (ValueError)  AGENTIC_COMPLETION needs one dataset
    │   ├── PermissionDeniedError (PermissionError)  no read/write access to a dataset
    │   ├── InvalidRuleError (ValueError) a router rule that cannot be loaded
    │   └── PromptNotFoundError (FileNotFoundError) / PromptRenderError (KeyError)
    └── RuntimeFailure                    something outside the call failed
        ├── StoreError                    Kuzu or LanceDB refused an operation
        │   ├── StoreLockedError          another process holds the data dir
        │   ├── WriterBusyError           another replica holds the tenant's writer lease
        │   └── QueryTimeoutError         a caller's Cypher query ran past its limit
        ├── EmbeddingError                the embedding model failed to load or run
        └── LLMError                      the LLM provider failed
            ├── LLMPaymentRequiredError   budget exhausted: terminal, never retried
            ├── LLMAuthenticationError
            ├── LLMModelNotFoundError
            ├── LLMTimeoutError
            ├── LLMRateLimitError
            └── LLMResponseError          unusable output (e.g. invalid JSON)
"""

from __future__ import annotations

from typing import Any


class RecallEngineError(Exception):
    """Base class of every error raised by recall-engine."""


class UsageError(RecallEngineError):
    """The call was wrong; retrying it unchanged will fail again."""


class InvalidInputError(UsageError, ValueError):
    """Input data, a name, a path or an option is not acceptable."""


class InvalidFieldError(InvalidInputError):
    """A field of a public input model that does not validate.

    The input models are ``Document``, ``Message`` and ``Conversation``; the message
    names the model and field (``Message.timestamp``), as does ``field``. ``errors``
    keeps pydantic's error list (``loc``, ``msg``, ``type``) for callers that want
    every problem, not only the first one.
    """

    def __init__(self, message: str, *, field: str, errors: list[dict[str, Any]]) -> None:
        super().__init__(message)
        self.field = field
        self.errors = errors


class UnsupportedFileTypeError(InvalidInputError):
    """A file whose type remember() cannot read."""


class InputTooLargeError(InvalidInputError):
    """An item or a query over its budget (``recall_engine.core.limits``)."""


class DatasetNotFoundError(InvalidInputError):
    """A dataset named in a scope does not exist in the tenant."""


class UserNotFoundError(InvalidInputError):
    """A ``user=`` (a User or a user id) that the tenant does not have."""


class ConfigError(InvalidInputError):
    """A configuration value (an argument or an environment variable) is not acceptable."""


class UnknownArgumentError(UsageError, TypeError):
    """A keyword argument (e.g. a configuration option) that the call does not take;
    the message names it and the accepted ones."""


class UnsupportedSearchTypeError(UsageError, ValueError):
    """A search type that is disabled by configuration."""


class SearchTypeNotImplementedError(UsageError, NotImplementedError):
    """A search type that this version does not implement yet."""


class EmbeddingModelMismatchError(UsageError, ValueError):
    """The store was built with a different embedding model."""


class RecallPreconditionError(UsageError):
    """recall() was called on a store that holds nothing yet."""


class PermissionDeniedError(UsageError, PermissionError):
    """The user may not read (or write, or administer) a dataset; its owner can grant it."""


class LLMNotConfiguredError(UsageError):
    """A search type that cannot run without an LLM ran with none.

    NATURAL_LANGUAGE and AGENTIC_COMPLETION need one to retrieve; ``only_context=True``
    makes no LLM call, so it refuses them too.
    """


class InvalidAgenticDatasetScope(UsageError, ValueError):
    """AGENTIC_COMPLETION was asked to search other than exactly one dataset."""


class InvalidRuleError(UsageError, ValueError):
    """A router rule with a bad pattern, unknown target or negative weight."""


class PromptNotFoundError(UsageError, FileNotFoundError):
    """A prompt template that does not exist."""


class PromptRenderError(UsageError, KeyError):
    """A prompt template rendered without one of its variables."""


class RuntimeFailure(RecallEngineError):
    """Something outside the call failed; it may succeed later."""


class StoreError(RuntimeFailure):
    """The graph or vector store refused an operation."""


class StoreLockedError(StoreError):
    """Another process holds the data dir.

    One process at a time may open a data dir; the message names the holder's pid,
    host and program.
    """


class WriterBusyError(StoreError):
    """Another replica held the tenant's writer lease for longer than this one may wait.

    Nothing was changed. ``retry_after_s`` says when it is worth trying again.
    """

    def __init__(self, message: str, *, retry_after_s: float) -> None:
        super().__init__(message)
        self.retry_after_s = retry_after_s


class QueryTimeoutError(StoreError):
    """A caller-written Cypher query ran past its time limit."""


class EmbeddingError(RuntimeFailure):
    """The embedding model could not be loaded or failed to embed."""


class LLMError(RuntimeFailure):
    """The LLM provider failed."""


class LLMPaymentRequiredError(LLMError):
    """The provider requires payment or the token budget is exhausted (terminal)."""


class LLMAuthenticationError(LLMError):
    """The provider rejected the credentials."""


class LLMModelNotFoundError(LLMError):
    """The provider does not know the configured model."""


class LLMTimeoutError(LLMError):
    """The provider did not answer in time, after retries."""


class LLMRateLimitError(LLMError):
    """The provider kept rate-limiting after retries."""


class LLMResponseError(LLMError):
    """The provider answered with output that could not be used."""
