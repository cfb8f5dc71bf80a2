"""The names the engine gives data items that come without one, in one place:
ingest writes them, and the title index tells them from real titles.

A document or text without a title is named by its opening words; a
conversation without one by its first and last message ids. Such a name says
nothing the text does not, so the title signal (``read.titles``) leaves it out.
"""

from __future__ import annotations

from collections.abc import Sequence

NAME_CHARS = 80
"""A data item named after its text keeps at most this many characters of it
(the name is repeated on every chunk, so a 5 MB first word must not become it)."""
OPENING_WORDS = 8
_MORE = "..."


def opening_words(text: str, n: int = OPENING_WORDS) -> str:
    """The first ``n`` words of ``text`` (at most ``NAME_CHARS`` characters), with
    ``...`` when the text goes on."""
    words = text[: NAME_CHARS * 4].split(maxsplit=n)
    name = " ".join(words[:n])
    if len(name) > NAME_CHARS:
        return name[:NAME_CHARS].rstrip() + _MORE
    return name + (_MORE if len(words) > n or len(text) > NAME_CHARS * 4 else "")


def conversation_name(first_id: str, last_id: str) -> str:
    """The name of a conversation given without a title."""
    return f"conversation {first_id}..{last_id}"


def is_titled(name: str, opening: str, message_ids: Sequence[str] = ()) -> bool:
    """Whether ``name`` is a title of its own rather than the one the engine made.

    ``opening`` is the text of the item's first chunk and ``message_ids`` the ids of
    a conversation's messages in order (empty for a document). A first chunk
    shorter than the item still gives its opening words, so the names are compared
    without their ``...``.
    """
    if message_ids:
        return name != conversation_name(message_ids[0], message_ids[-1])
    return name.removesuffix(_MORE) != opening_words(opening).removesuffix(_MORE)
