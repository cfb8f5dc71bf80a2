"""Query-to-entity linking, written once: the entities a text names.

A name is linked when its normalised form (``core.names.normalize_name``) equals
a run of up to ``longest`` consecutive words of the normalised text, so
"Where did Ada Lovelace live?" links "Ada Lovelace" and, through the reader's
alias and surname keys, "Lovelace". Used by recall()'s graph lane and by the
tenant API's query expansion and graph context.
"""

from __future__ import annotations

from recall_engine.core.hits import EntityHit
from recall_engine.core.names import normalize_name
from recall_engine.read.api import ReadAPI

LONGEST_NAME = 6  # words


def name_grams(text: str, longest: int = LONGEST_NAME) -> set[str]:
    """Every run of up to ``longest`` words of ``normalize_name(text)``: the keys a
    name the text mentions can have."""
    words = normalize_name(text).split()
    return {
        " ".join(words[i : i + n]) for n in range(1, longest + 1) for i in range(len(words) - n + 1)
    }


async def link_entities(read: ReadAPI, text: str) -> list[EntityHit]:
    """The entities in scope whose name, alias or surname ``text`` names
    (deduplicated, in the reader's order)."""
    grams = sorted(name_grams(text))
    if not grams:
        return []
    found = await read.entities_by_name(grams)
    return list({e.id: e for e in found}.values())
