"""The numbers behind GRAPH_REPORT: degrees, hubs and communities of a scope's graph.

Plain functions over ``read.api.ScopeGraph`` (blocking: run them in a worker
thread). Communities come from networkx's Louvain method, seeded, on the entity
graph whose edge weights count the relations between two entities.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from recall_engine.read.api import ScopeGraph

if TYPE_CHECKING:  # imported where a report is built, not at every process start
    import networkx as nx

GENERIC_PREDICATES = frozenset({"related_to", "mentions", "mentioned_with"})
"""Relations too vague to say what a community is about."""
STATE_PREDICATES = frozenset({"feels"})
"""Relations to a passing state (a mood), not a topic: left out of the graph."""
LEAD_CHUNKS = 5
"""Chunks stating most of a community's relations, read for its quote."""
SEED = 7


@dataclass
class Structure:
    """The entity graph of a scope, with what the report ranks by."""

    graph: nx.Graph
    mentions: dict[str, list[str]]
    predicates: dict[tuple[str, str], Counter[str]] = field(default_factory=dict)
    chunks: dict[tuple[str, str], Counter[str]] = field(default_factory=dict)

    @property
    def entity_count(self) -> int:
        return len(set(self.graph.nodes) | set(self.mentions))

    def degree(self, entity: str) -> int:
        return int(self.graph.degree(entity)) if entity in self.graph else 0

    def mention_count(self, entity: str) -> int:
        return len(self.mentions.get(entity, ()))

    def first_chunk(self, entity: str) -> str | None:
        chunks = self.mentions.get(entity)
        if chunks:
            return chunks[0]
        for pair, counts in self.chunks.items():
            if entity in pair:
                return counts.most_common(1)[0][0]
        return None

    def hubs(self, k: int) -> list[str]:
        """The ``k`` most connected entities: distinct neighbours, then mentions."""
        ranked = sorted(
            self.graph.nodes, key=lambda e: (-self.degree(e), -self.mention_count(e), str(e))
        )
        return ranked[:k]


@dataclass(frozen=True)
class Community:
    """One community: its entities best connected first, its commonest relations, and
    the chunk stating most of its relations."""

    size: int
    members: tuple[str, ...]
    predicates: tuple[str, ...]
    chunk_ids: tuple[str, ...]
    """The chunks stating most of its relations, most first."""

    @property
    def chunk_id(self) -> str | None:
        return self.chunk_ids[0] if self.chunk_ids else None


def structure(scope: ScopeGraph) -> Structure:
    """The undirected entity graph of ``scope`` (self-loops left out)."""
    import networkx as nx

    graph = nx.Graph()
    shape = Structure(graph=graph, mentions=scope.mentions)
    for edge in scope.edges:
        a, b = edge.source_id, edge.target_id
        if a == b or edge.predicate in STATE_PREDICATES:
            continue
        pair = (a, b) if a < b else (b, a)
        if graph.has_edge(a, b):
            graph[a][b]["weight"] += 1
        else:
            graph.add_edge(a, b, weight=1)
        shape.predicates.setdefault(pair, Counter())[edge.predicate] += 1
        shape.chunks.setdefault(pair, Counter())[edge.chunk_id] += 1
    return shape


def communities(shape: Structure, k: int, members: int) -> list[Community]:
    """The ``k`` largest communities of at least three entities, largest first."""
    import networkx as nx

    graph = shape.graph
    if graph.number_of_edges() == 0:
        return []
    found = nx.community.louvain_communities(graph, weight="weight", seed=SEED)
    groups = sorted((g for g in found if len(g) >= 3), key=lambda g: (-len(g), min(g)))
    out = []
    for group in groups[:k]:
        inner = graph.subgraph(group)
        ranked = sorted(
            group,
            key=lambda e: (-inner.degree(e, weight="weight"), -shape.mention_count(e), e),
        )
        predicates: Counter[str] = Counter()
        chunks: Counter[str] = Counter()
        for a, b in inner.edges:
            pair = (a, b) if a < b else (b, a)
            predicates.update(shape.predicates.get(pair, Counter()))
            chunks.update(shape.chunks.get(pair, Counter()))
        named = [p for p, _ in predicates.most_common() if p not in GENERIC_PREDICATES][:3]
        lead = tuple(c for c, _ in chunks.most_common(LEAD_CHUNKS))
        out.append(Community(len(group), tuple(ranked[:members]), tuple(named), lead))
    return out
