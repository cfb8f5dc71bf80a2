"""Configuration: ``RecallConfig`` and where its values come from.

``model`` declares the fields and their checks, ``env`` reads them from the
environment, ``distributed`` types the shared stores' URLs and S3 options.
``from recall_engine.config import RecallConfig`` is the public import path.
"""

from recall_engine.config.model import (
    ENV_VARS,
    GRAPH_SCHEMES,
    MAX_DIR_NAME,
    PACKAGED_EMBEDDING_MODEL,
    S3_ENV_VARS,
    RecallConfig,
    dir_name,
)

__all__ = [
    "ENV_VARS",
    "GRAPH_SCHEMES",
    "MAX_DIR_NAME",
    "PACKAGED_EMBEDDING_MODEL",
    "S3_ENV_VARS",
    "RecallConfig",
    "dir_name",
]
