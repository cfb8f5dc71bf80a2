"""Loads the contract-suite fixtures (``contract_stores``) for tests/storage."""

import importlib.util
from pathlib import Path

_spec = importlib.util.spec_from_file_location(
    "contract_stores", Path(__file__).with_name("contract_stores.py")
)
assert _spec is not None and _spec.loader is not None
contract_stores = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(contract_stores)

graph_store = contract_stores.graph_store
vector_store = contract_stores.vector_store
DIMENSION = contract_stores.DIMENSION
