"""When the routed default's follow-up hop is worth a second embedding and search.

The hop searches again for the question plus its best evidence (``graph_rounds``):
a bridge to the part of the question that the best passage does not answer. It
is skipped after the first round when:

- the first round's best passage already holds at least ``coverage`` of the
  question's content words (stemmed, stopwords dropped): nothing is left for a
  bridge to reach; or
- the question asks for a list ("What activities does Ann do?", "Which cities has
  Ann visited?", "What are Ann's hobbies?"): its items are siblings, not a chain,
  and a query built from one item's passage pulls the next round towards that item;
  or
- the best passage names other items by their titles, and the first round already
  holds a chunk of every one of them: the passage lane follows a passage's title
  links (``retrievers.passages.follow_titles``), so the bridge the hop would cross
  is crossed already. A passage that names no title (a conversation's turn, an
  untitled note) keeps the hop.

Each is read from the question and the first round only (no model, no word list
of a domain); ``Stop("hop_not_needed: ...")`` reports which one held.
"""

from __future__ import annotations

from collections.abc import Hashable

from recall_engine.core.hits import ChunkHit
from recall_engine.core.terms import terms
from recall_engine.read.api import ReadAPI
from retrievers.graph_rounds import ROUND_K, NextQuery, Query, Stop
from retrievers.graph_search import GraphResult
from retrievers.list_shape import list_shaped


def covered_share(question: str, text: str) -> float:
    """The share of the question's content words (stemmed) that ``text`` holds.

    Args:
        question: the question text.
        text: a passage.

    Returns:
        A share in [0, 1]; 1.0 for a question with no content word.
    """
    asked = set(terms(question))
    if not asked:
        return 1.0
    return len(asked & set(terms(text))) / len(asked)


def skip_reason(question: str, first: GraphResult, coverage: float) -> str | None:
    """Why the hop is not needed after ``first`` (module docstring), or None when it is.

    Args:
        question: the question text.
        first: the first round's result (its best passage is read).
        coverage: the share of the question's content words the best passage must
            hold for the hop to be skipped.

    Returns:
        ``"list"``, ``"covered"`` or None.
    """
    if list_shaped(question):
        return "list"
    best = next((h for h in first.hits if isinstance(h, ChunkHit)), None)
    if best is not None and covered_share(question, best.text) >= coverage:
        return "covered"
    return None


async def links_followed(read: ReadAPI, first: GraphResult) -> bool:
    """Whether the first round's best passage names other items by title and the
    first round already holds a chunk of each of them (module docstring).

    Args:
        read: the tenant's read API (the title index).
        first: the first round's result, its first ``ROUND_K`` hits.

    Returns:
        False when there is no passage, or it names no other item, or one named
        item has no chunk among ``first``'s hits, or the named items have more than
        ``ROUND_K`` chunks (not every one of them could be held).
    """
    held = [h for h in first.hits if isinstance(h, ChunkHit)]
    if not held:
        return False
    best = held[0]
    linked = await read.titled_chunks(best.text, ROUND_K + 1)
    if len(linked) > ROUND_K:  # names more than can be told apart: let the hop run
        return False
    named = {h.data_id for h in linked if h.data_id != best.data_id}
    return bool(named) and named <= {h.data_id for h in held}


def gated(
    question: str, follow_up: NextQuery, coverage: float, read: ReadAPI | None = None
) -> NextQuery:
    """``follow_up`` run only when the first round says a hop is needed.

    Args:
        question: the question text.
        follow_up: the next query of the rounds loop (``graph_rounds.offline_follow_up``).
        coverage: see ``skip_reason``.
        read: the tenant's read API; given, the hop is also skipped when the best
            passage's title links are followed already (``links_followed``).

    Returns:
        A next-query function that, on the loop's first call, answers
        ``Stop("hop_not_needed: <reason>")`` when ``skip_reason`` gives one (or
        ``"linked"``), and
        otherwise (and on every later call) defers to ``follow_up``.
    """
    asked = False

    async def next_query(merged: GraphResult, used: set[Hashable]) -> str | Query | Stop:
        nonlocal asked
        if not asked:
            asked = True
            reason = skip_reason(question, merged, coverage)
            if reason is None and read is not None and await links_followed(read, merged):
                reason = "linked"
            if reason is not None:
                return Stop(f"hop_not_needed: {reason}")
        return await follow_up(merged, used)

    return next_query
