"""The feedback step: hits that well-rated answers used move up, badly rated ones down.

Feedback is tallied per graph element and chunk (``SessionStore.element_weights``:
mean rating mapped to [-1, 1]). A hit's weight is the mean over its own element
and the chunks it rests on that were rated. With ``feedback_influence`` f in
(0, 1], each hit's score becomes ``(1 - f) * s + f * (w + 1) / 2``, where ``s`` is
its score min-max scaled over the hits; unrated hits sit at the neutral 0.5, so
f = 0 keeps the retriever's order and f = 1 orders by feedback alone.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from recall_engine.core.hits import AnyHit
from recall_engine.pipeline.session import hit_element


def hit_weight(hit: AnyHit, weights: Mapping[str, float]) -> float | None:
    """The mean feedback of a hit's rated element and chunks; None when unrated."""
    own = hit_element(hit)
    keys = dict.fromkeys([*([own] if own else []), *(f"chunk:{s.chunk_id}" for s in hit.sources)])
    rated = [weights[k] for k in keys if k in weights]
    return sum(rated) / len(rated) if rated else None


def rerank(
    hits: Sequence[AnyHit], weights: Mapping[str, float], influence: float
) -> tuple[list[AnyHit], dict[str, float]]:
    """Hits re-scored and re-ordered by feedback (stable for ties), and the weight
    of each rated hit by its position in the input."""
    if not hits or influence <= 0:
        return list(hits), {}
    scores = [h.score for h in hits]
    low, high = min(scores), max(scores)
    span = high - low
    out: list[tuple[float, int, AnyHit]] = []
    applied: dict[str, float] = {}
    for position, hit in enumerate(hits):
        scaled = (hit.score - low) / span if span > 0 else 1.0
        weight = hit_weight(hit, weights)
        if weight is not None:
            applied[str(position)] = round(weight, 4)
        feedback = 0.5 if weight is None else (weight + 1.0) / 2.0
        score = (1.0 - influence) * scaled + influence * feedback
        out.append((score, position, hit.with_score(round(score, 6))))
    out.sort(key=lambda t: (-t[0], t[1]))
    return [hit for _, _, hit in out], applied
