"""Ends whose family only their value tells: "I left Acme" ends an employer, "I left
Lyon" a home.

The rule extractor states such a sentence as ``LEFT`` (``rules_ends``): the words do
not say which aspect ended. Once entity resolution has joined the value to what the
dataset knows of that name (the employer "Acme" an organisation, the home "Lyon" a
place, or a name typed so in the sentence itself), ``settle`` makes it the one end of
the family its type names (``LEFT_ENDS``), stated as past as every end that names its
value is (``supersession.stamp``): it ends the value of that name if it holds, and
nothing else. A value of no such type stays ``LEFT``: the subject left it, and no
aspect of theirs is said to end.
"""

from __future__ import annotations

from collections.abc import Mapping

from recall_engine.core.graph import Entity, EntityType, Relation, relation_id
from recall_engine.graph.resolution import Resolution
from recall_engine.graph.supersession import family_of

LEFT = "left"
"""The predicate of "<subject> left <Name>" before its family is known."""

LEFT_ENDS: Mapping[EntityType, str] = {
    EntityType.ORGANIZATION: "ended_employer",
    EntityType.PLACE: "ended_home",
}
"""The end a ``LEFT`` states, by the type of the value left."""


def settle(resolution: Resolution, stored: Mapping[str, Entity]) -> Resolution:
    """``resolution`` with each ``LEFT`` relation whose value's type is in
    ``LEFT_ENDS`` made that end: its predicate and id, its family, and past
    validity (no ``valid_from``, ``valid_until`` its statement time).

    Args:
        resolution: An extraction resolved against the stored entities.
        stored: The stored entities its relations may point at, by id (their
            types count where the resolution left them unchanged).
    """
    relations = resolution.graph.relations
    if not any(r.predicate == LEFT for r in relations):
        return resolution
    entities = {**stored, **{e.id: e for e in resolution.graph.entities}}
    out: dict[str, Relation] = {}
    for r in relations:
        value = entities.get(r.target_id)
        predicate = LEFT_ENDS.get(value.type) if r.predicate == LEFT and value else None
        if predicate is not None and value is not None:
            r = _as_end(r, predicate, value.name)
        known = out.get(r.id)
        if known is None or known.confidence < r.confidence:
            out[r.id] = r
    graph = resolution.graph.model_copy(update={"relations": tuple(out.values())})
    return resolution.model_copy(update={"graph": graph})


def _as_end(relation: Relation, predicate: str, name: str) -> Relation:
    stated = relation.valid_from or relation.valid_until
    return relation.model_copy(
        update={
            "id": relation_id(
                relation.namespace,
                relation.source_id,
                predicate,
                relation.target_id,
                relation.chunk_id,
            ),
            "predicate": predicate,
            "family": family_of(predicate, name),
            "valid_from": None,
            "valid_until": stated,
        }
    )
