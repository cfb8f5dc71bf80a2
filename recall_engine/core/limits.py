"""Per-request budgets: the most text one remembered item and one query may hold.

An ingest costs time in proportion to its text (chunking, embedding, graph
extraction) and holds one item's chunks, vectors and graph in memory until its
atomic commit; a query is embedded, tokenised and routed whole. These limits
keep one call's work bounded, in Python and over HTTP alike (where a refusal is
a 413). Both are ``RecallConfig`` fields (``max_item_chars``,
``max_query_chars``) with an environment variable each, up to the ceilings here.

- An item is one document, file, memory or conversation; a conversation counts
  the text of all its messages. The default (16 Mi characters) takes a 10 MB
  document whole; a larger text should be split into parts remembered one by one.
- A query counts its characters; the embedding model reads only its first ~256
  tokens (about 1,000 characters), so a few thousand characters is already more
  than any search uses.
"""

from __future__ import annotations

from recall_engine.core.errors import InputTooLargeError

DEFAULT_MAX_ITEM_CHARS = 16 * 1024 * 1024
"""Characters one remembered item may hold by default (16,777,216)."""
MAX_ITEM_CHARS_CEILING = 256 * 1024 * 1024
"""The highest ``max_item_chars`` a configuration may set (the largest file remember() reads)."""
DEFAULT_MAX_QUERY_CHARS = 4096
"""Characters one query may hold by default."""
MAX_QUERY_CHARS_CEILING = 65536
"""The highest ``max_query_chars`` a configuration may set."""


def check_item_size(size: int, *, limit: int, what: str) -> None:
    """Refuse an item of ``size`` characters over ``limit``.

    Raises:
        InputTooLargeError: naming ``what``, the limit and what to do.
    """
    if size > limit:
        raise InputTooLargeError(
            f"{what} holds {size:,} characters; one item may hold at most {limit:,} "
            "(max_item_chars). Split it into smaller documents and remember each one, "
            f"or raise max_item_chars (at most {MAX_ITEM_CHARS_CEILING:,})."
        )


def check_query_size(text: str, *, limit: int, what: str = "query_text") -> None:
    """Refuse a query (or a query's extra context) over ``limit`` characters.

    Raises:
        InputTooLargeError: naming ``what``, the limit and what to do.
    """
    if len(text) > limit:
        raise InputTooLargeError(
            f"{what} holds {len(text):,} characters; a query may hold at most {limit:,} "
            "(max_query_chars). Ask a shorter question (the embedding model reads only "
            "the first ~1,000 characters), or remember long text and search for it."
        )
