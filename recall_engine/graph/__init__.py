"""Knowledge-graph construction: extraction, entity resolution, visualisation.

Pure and storage-free: extractors turn ``ChunkInput`` into ``ChunkExtraction``;
``resolve`` merges entities within a namespace (against stored ones too);
``render_graph_html`` draws the result. Writing to Kuzu/LanceDB is the store's job.
"""

from recall_engine.core.graph import (
    ChunkExtraction,
    Entity,
    EntityType,
    Event,
    GraphExtraction,
    Mention,
    Relation,
)
from recall_engine.graph.extractor import ChunkInput, Extractor, make_namespace
from recall_engine.graph.resolution import Resolution, resolve
from recall_engine.graph.rules import RuleBasedExtractor
from recall_engine.graph.visualize import render_graph_html

__all__ = [
    "ChunkExtraction",
    "ChunkInput",
    "Entity",
    "EntityType",
    "Event",
    "Extractor",
    "GraphExtraction",
    "Mention",
    "Relation",
    "Resolution",
    "RuleBasedExtractor",
    "make_namespace",
    "render_graph_html",
    "resolve",
]
