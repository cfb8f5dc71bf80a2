"""The official HydraDB v2 SDK (``hydradb-sdk`` 2.x), unchanged, imported as
``hydra_db_v2`` so that it lives beside the v1 SDK (``hydra-db-python``).

Both distributions install a package named ``hydra_db``: installed into one
environment, the later one overwrites files of the other. So the v2 SDK is
installed into a folder of its own (``make sdk-v2``:
``pip install --no-deps --target .venv/hydradb-sdk-v2 hydradb-sdk==2.1.7``) and
its files are loaded from there under another name; its imports are all relative,
so every module of it resolves inside ``hydra_db_v2``. ``RECALL_HYDRADB_V2_SDK``
names another folder; an environment holding only the v2 SDK works too.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path
from types import ModuleType

NAME = "hydra_db_v2"


def _candidates() -> list[Path]:
    found = []
    if os.environ.get("RECALL_HYDRADB_V2_SDK"):
        found.append(Path(os.environ["RECALL_HYDRADB_V2_SDK"]))
    found.append(Path(sys.prefix) / "hydradb-sdk-v2")
    found.extend(Path(p) for p in sys.path if p.endswith("site-packages"))
    return found


def _version(folder: Path) -> str | None:
    for info in folder.glob("hydradb_sdk-*.dist-info"):
        return info.name.removeprefix("hydradb_sdk-").removesuffix(".dist-info")
    return None


def load() -> ModuleType | None:
    """The v2 SDK's ``hydra_db`` package as ``hydra_db_v2``; None when no folder
    holds hydradb-sdk 2.x."""
    if NAME in sys.modules:
        return sys.modules[NAME]
    for folder in _candidates():
        package = folder / "hydra_db"
        version = _version(folder)
        if not (package / "context").is_dir() or not version or not version.startswith("2."):
            continue
        spec = importlib.util.spec_from_file_location(
            NAME, package / "__init__.py", submodule_search_locations=[str(package)]
        )
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[NAME] = module
        spec.loader.exec_module(module)
        module.SDK_VERSION = version  # type: ignore[attr-defined]
        return module
    return None
