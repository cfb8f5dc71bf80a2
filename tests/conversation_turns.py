"""A conversation turn as a knowledge source of type ``conversation`` (tenant API tests)."""

from __future__ import annotations


def conversation_turn(
    n: int, text: str, speaker: str = "Ann", **extra: object
) -> dict[str, object]:
    """Turn ``n`` said by ``speaker`` (the source's title), a minute after turn ``n - 1``.

    Args:
        n: the turn's number: its id ``t<n>`` and its minute.
        text: what was said.
        speaker: who said it.
        **extra: more source fields (``metadata``, ``expiry_time``, ...).

    Returns:
        The source, as ``upload_knowledge`` takes it.
    """
    return {
        "id": f"t{n}",
        "title": speaker,
        "type": "conversation",
        "text": text,
        "timestamp": f"2023-05-08T13:{n:02d}:00",
        **extra,
    }
