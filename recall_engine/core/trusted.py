"""Pydantic models built from values that already have their fields' types.

The read API turns about 150 stored chunk records into ``ChunkHit``s per passage
query (dense and BM25 candidates, their neighbours); validating each one and its
``SourceRef`` cost more CPU than the searches themselves. The records are typed
dataclasses checked at ingest, so their values are of the fields' types already.
``model_construct`` skips validation too, but its per-field default and alias
handling costs more than validating (pydantic 2.14); ``assemble`` sets the same
four attributes that ``model_construct`` sets, in one step. Only models without
private attributes, extra fields or a ``model_post_init`` may be built this way;
the tests compare every use with the validated model.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TypeVar

from pydantic import BaseModel

M = TypeVar("M", bound=BaseModel)


def assemble(cls: type[M], values: Mapping[str, object], fields_set: set[str]) -> M:
    """An instance of ``cls`` that holds ``values`` as they are.

    ``values`` names every field of ``cls`` in declaration order, each already of
    its declared type; ``fields_set`` are the fields counted as given (what
    ``model_fields_set`` answers). Nothing is validated or copied.
    """
    model = cls.__new__(cls)
    object.__setattr__(model, "__dict__", values)
    object.__setattr__(model, "__pydantic_fields_set__", fields_set)
    object.__setattr__(model, "__pydantic_extra__", None)
    object.__setattr__(model, "__pydantic_private__", None)
    return model
