"""Fixed bounds on the arguments a caller sends, so every request has a bounded cost.

A service is a trust boundary: an id, a name, a comment or a list of names a caller
sends is read, compared, stored or echoed back in a reply, so each has a length
here, checked before any work is done. The text budgets that a deployment may tune
(one item's text, one query) are ``core.limits``'s configured ``max_item_chars`` and
``max_query_chars``; these are fixed, and well above what a real call sends.

- ``MAX_ID_CHARS``: a session id, an answer's ``qa_id``, a user id, a dataset id.
- ``MAX_SUBJECT_CHARS``: a name to look up: ``facts()``'s subject, a ``node_name``.
- ``MAX_NAMES``: how many names or ids one list may hold (``datasets=``,
  ``dataset_ids=``, ``node_name=``).
- ``MAX_FEEDBACK_CHARS``: the comment kept with a rating (``add_feedback(text=)``).
- ``MAX_SYSTEM_PROMPT_CHARS``: an inline ``system_prompt``.
- ``MAX_METADATA_CHARS``: caller metadata written as JSON (it is copied onto every chunk
  of the item).
- ``MAX_OPTION_KEYS``: the keys of ``retriever_specific_config``.
"""

from __future__ import annotations

from collections.abc import Sized

from recall_engine.core.errors import InvalidInputError

MAX_ID_CHARS = 200
"""Characters of one id (session, answer, user, dataset)."""
MAX_SUBJECT_CHARS = 1000
"""Characters of one name looked up in the graph (a subject, a node name)."""
MAX_NAMES = 1000
"""Entries of one list of names or ids."""
MAX_FEEDBACK_CHARS = 10_000
"""Characters of a rating's comment."""
MAX_SYSTEM_PROMPT_CHARS = 65_536
"""Characters of an inline system prompt."""
MAX_METADATA_CHARS = 65_536
"""Characters of one item's metadata, written as JSON."""
MAX_OPTION_KEYS = 64
"""Keys of a retriever's own options."""


def check_length(value: str, *, what: str, limit: int, hint: str) -> str:
    """Refuse a text over ``limit`` characters.

    Args:
        value: the text (already known to be a string).
        what: the argument's name, as the caller wrote it.
        limit: the most characters allowed.
        hint: what to do instead, one sentence.

    Returns:
        ``value`` unchanged.

    Raises:
        InvalidInputError: naming ``what``, its length, the limit and ``hint``.
    """
    if len(value) > limit:
        raise InvalidInputError(
            f"{what} holds {len(value):,} characters; at most {limit:,} are allowed. {hint}"
        )
    return value


def check_count(values: Sized, *, what: str, limit: int, hint: str) -> None:
    """Refuse a list (or mapping) of more than ``limit`` entries.

    Raises:
        InvalidInputError: naming ``what``, its size, the limit and ``hint``.
    """
    if len(values) > limit:
        raise InvalidInputError(
            f"{what} holds {len(values):,} entries; at most {limit:,} are allowed. {hint}"
        )


def shown(value: object, *, limit: int = 80) -> str:
    """``repr(value)`` cut to about ``limit`` characters, for an error message that
    quotes what the caller sent (a huge argument is never echoed whole)."""
    text = repr(value)
    return text if len(text) <= limit else f"{text[: limit - 3]}..."
