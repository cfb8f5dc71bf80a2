"""Turns that ask and the replies that answer them, as graph-search signals.

A conversation turn that asks repeats the question's words but answers nothing:
the graph search scores it ``1 - question_weight x`` the share of its words in
sentences that ask (``graph_scoring.asking_share``). What such a turn asks is
answered by its reply, the next turn of the conversation, said by someone else
(an adjacency pair: "Which trail do you hike?" / "The ridge trail."). So the
score a turn loses for asking is not dropped but passed to its reply, whose own
words often share nothing with the question. A chunk without a speaker (a
document's) has no reply: it only loses.

What it adds: ``docs/decisions.md``.
"""

from __future__ import annotations

from collections.abc import Callable

from recall_engine.core.hits import ChunkHit
from recall_engine.core.names import normalize_name
from recall_engine.read.api import ReadAPI
from retrievers.graph_scoring import asking_share


def demote_questions(
    chunk_score: dict[str, float], chunk_of: dict[str, ChunkHit], weight: float
) -> tuple[dict[str, float], dict[str, float]]:
    """Each chunk's score times ``1 - weight x`` its asking share, and what each
    chunk that asks lost."""
    scores, lost = {}, {}
    for c, value in chunk_score.items():
        scores[c] = value * (1 - weight * asking_share(chunk_of[c].text))
        if value - scores[c] > 0:
            lost[c] = value - scores[c]
    return scores, lost


async def pass_to_replies(
    read: ReadAPI,
    scores: dict[str, float],
    lost: dict[str, float],
    chunk_of: dict[str, ChunkHit],
    *,
    askers: int,
    keeps: Callable[[ChunkHit], bool] | None = None,
) -> dict[str, float]:
    """``scores`` with what each of the ``askers`` turns that lost most lost added
    to its reply: the next chunk of its data item, said by another speaker (and
    kept by ``keeps``). A reply not yet among the candidates joins ``chunk_of``."""
    lenders = [c for c in sorted(lost, key=lambda c: (-lost[c], c)) if chunk_of[c].speaker]
    lenders = lenders[:askers]
    if not lenders:
        return scores
    # Where each asker's next turn is (places: no hit built for the ~3 chunks around
    # each of the askers); hits only for the replies not among the candidates yet.
    at = {
        (p.data_id, p.chunk_index): p.chunk_id
        for p in await read.places_by_id(lenders, neighbours=1)
    }
    after = {c: at.get((chunk_of[c].data_id, chunk_of[c].chunk_index + 1)) for c in lenders}
    fresh = [r for r in dict.fromkeys(after.values()) if r is not None and r not in chunk_of]
    found = {h.chunk_id: h for h in await read.chunks_by_id(fresh)} if fresh else {}
    out = dict(scores)
    for c in lenders:
        asker, reply_id = chunk_of[c], after[c]
        reply = None if reply_id is None else chunk_of.get(reply_id) or found.get(reply_id)
        if reply is None or not reply.speaker or (keeps is not None and not keeps(reply)):
            continue
        if normalize_name(reply.speaker) == normalize_name(asker.speaker or ""):
            continue
        chunk_of.setdefault(reply.chunk_id, reply)
        out[reply.chunk_id] = out.get(reply.chunk_id, 0.0) + lost[c]
    return out
