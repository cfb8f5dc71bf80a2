"""A personalised PageRank walk over passages and the entities they mention.

HippoRAG 2's graph, restricted to the query's candidate subgraph so its cost is
bounded by the candidate depth, not by the dataset:

- passage nodes: the passage lane's candidates, plus the other passages that
  mention a *specific* entity of the best candidates (one mentioned by at most
  ``EXPAND_DEGREE`` passages), so a second-hop passage that shares no word with
  the question can enter;
- entity nodes: every entity those passages mention, joined to each passage
  that mentions it (weight 1);
- entity-entity edges: the relations stated in those passages, and synonymy
  edges between entities whose normalised names are equal or one is a word
  run of the other ("Obama" / "Barack Obama", ``read.name_table``), the cheap
  form of HippoRAG's embedding-similar names.

The walk restarts at the passages, in proportion to their passage-lane score,
and at the query's linked entities, each weighted by its specificity
(``1 / passages mentioning it``): a name every turn of a conversation mentions
spreads almost nothing, so a question naming a person does not lift every
passage merely *about* that person (the adversarial failure of a flat
name-link bonus). The passages' visit probabilities are the walk's scores.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Protocol

import numpy as np

from recall_engine.read.api import ReadAPI


class WalkOptions(Protocol):
    """The walk's knobs (``GraphSearchConfig`` carries them)."""

    walk_weight: float
    entity_seed_weight: float
    damping: float


EXPAND_SEEDS = 10
"""Best candidates whose entities expand (bring in the passages mentioning them)."""
EXPAND_DEGREE = 8
"""An entity mentioned by more passages than this is too common to expand."""
EXPAND_LIMIT = 50
"""Most passages the walk brings in."""


def walk_scores(
    passages: Sequence[str],
    mentioned: Mapping[str, Sequence[str]],
    relations: Sequence[tuple[str, str]],
    passage_seeds: Mapping[str, float],
    entity_seeds: Mapping[str, float],
    *,
    damping: float = 0.5,
    iterations: int = 40,
    tolerance: float = 1e-7,
) -> dict[str, float]:
    """Visit probability of each passage in a walk over the passage-entity graph
    that restarts (probability ``1 - damping``) at the seeds; ``relations`` are
    undirected entity-entity edges (entities missing from the graph are dropped).
    Dangling mass returns to the seeds. All zero when no seed has weight."""
    index: dict[str, int] = {p: i for i, p in enumerate(passages)}
    n_passages = len(index)
    node: dict[str, int] = {}  # entity -> its node, numbered after the passages
    rows: list[int] = []
    cols: list[int] = []
    for passage in passages:
        at = index[passage]
        for entity in mentioned.get(passage, ()):
            j = node.get(entity)
            if j is None:
                j = node[entity] = n_passages + len(node)
            rows.append(at)
            cols.append(j)
    for a, b in relations:
        ia, ib = node.get(a), node.get(b)
        if ia is not None and ib is not None and ia != ib:
            rows.append(ia)
            cols.append(ib)
    n = n_passages + len(node)
    if n == 0:
        return {}
    restart = np.zeros(n)
    for passage, weight in passage_seeds.items():
        if passage in index:
            restart[index[passage]] += max(weight, 0.0)
    for entity, weight in entity_seeds.items():
        if (seed := node.get(entity)) is not None:
            restart[seed] += max(weight, 0.0)
    total = restart.sum()
    if total <= 0:
        return dict.fromkeys(passages, 0.0)
    restart /= total
    # Each undirected edge once (a repeated mention or relation is one edge), as
    # (src, dst) pairs sorted by src then dst: the rows of the transition matrix
    # in CSR order, so bincount sums each row's terms in the order, and to the
    # same floats, as the scipy CSR product it replaces (without its overhead).
    r, c = np.asarray(rows, dtype=np.int64), np.asarray(cols, dtype=np.int64)
    pairs = _sorted_unique(np.concatenate([r * n + c, c * n + r]))
    src, dst = pairs // n, pairs % n
    out_weight = np.bincount(src, minlength=n).astype(np.float64)
    dangling = out_weight == 0
    inverse = np.divide(1.0, out_weight, out=np.zeros(n), where=~dangling)
    share = inverse[dst]  # the walk leaves dst for src with probability 1 / degree(dst)
    rank = restart.copy()
    for _ in range(iterations):
        step = np.bincount(src, weights=share * rank[dst], minlength=n)
        flow = step + rank[dangling].sum() * restart
        new = (1 - damping) * restart + damping * flow
        done = float(np.abs(new - rank).sum()) < tolerance
        rank = new
        if done:
            break
    return {p: float(rank[i]) for p, i in index.items()}


def _sorted_unique(values: np.ndarray) -> np.ndarray:
    """``np.unique(values)`` for a 1-d integer array, by a sort: numpy 2's hashed
    ``unique`` took ~0.7 ms on a walk's ~6,000 edge keys, the sort ~0.13."""
    values = np.sort(values)
    if values.size > 1:
        values = values[np.concatenate(([True], values[1:] != values[:-1]))]
    return values


async def walk_lane(
    read: ReadAPI,
    score: Mapping[str, float],
    mentioned: Mapping[str, Sequence[str]],
    linked: set[str],
    options: WalkOptions,
) -> tuple[dict[str, float], dict[str, object]]:
    """The walk's passage scores (best = 1) over the candidates ``score`` (passage
    lane, best = 1) and the passages its specific entities bring in."""
    if options.walk_weight <= 0 or not score:
        return {}, {}
    ranked = sorted(score, key=lambda c: (-score[c], c))
    around = {e for c in ranked[:EXPAND_SEEDS] for e in mentioned.get(c, ())}
    degree_of = await read.mentions(sorted(around | linked))
    degree = {e: len(cs) for e, cs in degree_of.items()}
    brought: list[str] = []
    for entity in sorted(around, key=lambda e: (degree.get(e, 0), e)):
        if degree.get(entity, 0) > EXPAND_DEGREE:
            break
        brought += [c for c in degree_of.get(entity, ()) if c not in score]
    brought = list(dict.fromkeys(brought))[:EXPAND_LIMIT]
    links = dict(mentioned)
    if brought:
        links.update(await read.mentioned_in(brought))
    nodes = [*ranked, *brought]
    edges = await read.edges_in_chunks(nodes)
    entities = {e for c in nodes for e in links.get(c, ())}
    relations = [(e.source_id, e.target_id) for e in edges]
    relations += await read.synonym_pairs(list(entities))
    seedable = await read.entity_refs(sorted(linked & entities))
    entity_seeds = {
        e: options.entity_seed_weight / max(1, degree.get(e, 1)) for e in linked if e in seedable
    }
    walked = walk_scores(nodes, links, relations, score, entity_seeds, damping=options.damping)
    top = max(walked.values(), default=0.0)
    out = {c: v / top for c, v in walked.items()} if top > 0 else {}
    return out, {"walk_nodes": len(nodes) + len(entities), "walk_brought": len(brought)}
