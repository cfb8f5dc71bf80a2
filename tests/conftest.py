"""Fixtures shared by every test package.

``make test`` runs the suite on several xdist workers at once (``--dist loadfile``:
a file's tests stay on one worker). A test shares nothing it did not make: a fresh
name for a Postgres schema, Redis prefix, graph or S3 prefix (``secrets.token_hex``;
``tests.distributed_profile``, ``tests/state/conftest.py``), a port from
``tests.live_uvicorn.free_port``, its own ``tmp_path``; a session fixture is built
once per worker.
"""

from __future__ import annotations

import shutil
import sys
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from recall_engine.testing import block_network
from tests import build_ahead


def pytest_configure(config: pytest.Config) -> None:
    """On a machine without FalkorDB's build, a run of the whole suite starts it ahead
    (``tests.build_ahead``); a run of chosen tests builds it when one needs it."""
    if config.args_source != pytest.Config.ArgsSource.ARGS:
        build_ahead.start()


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """While FalkorDB builds ahead, its tests' files run last (``tests.build_ahead``)."""
    build_ahead.last(items)


@pytest.fixture(scope="session", autouse=True)
def _no_network() -> Iterator[None]:
    """No test may reach a real provider: only 127.0.0.1 / ::1 / localhost connect."""
    with block_network():
        yield


@pytest.fixture(scope="session", autouse=True)
def _stop_session_servers() -> Iterator[None]:
    """Servers a test started once for the session (FalkorDB, moto S3) stop when the
    session ends: an xdist worker may be killed on its way out before atexit runs."""
    yield
    for name in ("tests.storage.falkordb_live", "tests.storage.moto_s3"):
        module = sys.modules.get(name)
        if module is not None:
            module.shutdown()


@pytest.fixture
def hash_embedder():
    """A fast deterministic embedder for tests that do not measure semantic quality."""
    from recall_engine.testing import DeterministicEmbedder

    return DeterministicEmbedder()


@pytest.fixture
async def engine(tmp_path, hash_embedder):
    """An engine on a fresh data dir with the deterministic embedder."""
    from recall_engine import RecallEngine

    eng = RecallEngine(tmp_path / "data", embedder=hash_embedder)
    yield eng
    eng.close()


@pytest.fixture(scope="session")
def minilm():
    """The real packaged all-MiniLM-L6-v2 embedder, loaded once per test session."""
    from recall_engine.embedding import SentenceTransformerEmbedder

    embedder = SentenceTransformerEmbedder()
    embedder.embed(["warm up"])
    return embedder


@pytest.fixture(scope="session")
def onnx_minilm():
    """The packaged model on ONNX Runtime (exported once into the user cache), once per session."""
    from recall_engine.embedding.onnx import OnnxEmbedder

    embedder = OnnxEmbedder()
    embedder.warm_up()
    return embedder


@pytest.fixture(scope="session")
def prebuilt(tmp_path_factory) -> Callable[..., Path]:
    """``prebuilt(fill, dest, **engine_kwargs)``: a copy at ``dest`` of a data dir that
    ``fill(engine)`` filled once per session (on an engine with the deterministic embedder
    unless one is given, closed before copying); the data dir ``dest`` is the test's own, as
    if it had run ``fill`` itself, without paying for the ingest again."""
    built: dict[str, Path] = {}

    def copy(fill: Callable[[Any], Awaitable[Any]], dest: Path, **engine_kwargs: Any) -> Path:
        key = f"{fill.__module__}.{fill.__qualname__}"
        if key not in built:
            source = tmp_path_factory.mktemp("prebuilt") / "data"
            from recall_engine.testing import DeterministicEmbedder
            from tests.own_loop import filled

            engine_kwargs.setdefault("embedder", DeterministicEmbedder())
            filled(fill, source, **engine_kwargs)  # the test's loop may be running
            built[key] = source
        shutil.copytree(built[key], dest)
        return dest

    return copy


@pytest.fixture
def registered() -> Iterator[str]:
    """``tests.custom_retriever``'s SHORTEST_FIRST registered for one test, as a user
    outside the package registers a retriever."""
    from recall_engine import register_retriever, unregister_retriever
    from tests.custom_retriever import NAME, ShortestFirstRetriever

    register_retriever(NAME, ShortestFirstRetriever)
    yield NAME
    unregister_retriever(NAME)
