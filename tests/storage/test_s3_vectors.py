"""Vectors, chunk text and full-text on LanceDB at an ``s3://`` URI (a real moto
server on 127.0.0.1), through ``RecallEngine``: the tables live on S3, other
processes' writes and deletions reach a mirror within ``vector_refresh_s``, a bad
location fails clearly and changes nothing, and the keys never show.
"""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
import textwrap
import urllib.request
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from recall_engine import RecallEngine, SearchType
from recall_engine.config import RecallConfig
from recall_engine.core.errors import ConfigError, EmbeddingModelMismatchError, StoreError
from recall_engine.storage import tenant as tenant_module
from recall_engine.storage.lance_vectors import LanceVectorStore
from recall_engine.testing import DeterministicEmbedder
from tests.live_uvicorn import free_port
from tests.storage import moto_s3
from tests.storage.moto_s3 import SECRET, MotoS3

ADA = "Ada Lovelace wrote the first program for the Analytical Engine."
LYON = "Lyon is a city in France on the Rhone, famous for its silk weavers."
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def s3() -> MotoS3:
    return moto_s3.server()


def open_engine(data_dir: Path, s3: MotoS3, uri: str, **overrides: Any) -> RecallEngine:
    return RecallEngine(
        data_dir,
        embedder=DeterministicEmbedder(),
        vector_uri=uri,
        vector_storage_options=s3.options,
        **overrides,
    )


async def chunk_texts(engine: RecallEngine, query: str, *, lexical: bool = False) -> str:
    kind = SearchType.CHUNKS_LEXICAL if lexical else SearchType.CHUNKS
    results = await engine.recall(query, query_type=kind, only_context=True, top_k=10)
    return " | ".join(r.text for r in results)


def s3_keys(s3: MotoS3, uri: str) -> list[str]:
    prefix = uri.removeprefix(f"s3://{s3.bucket}/")
    with urllib.request.urlopen(
        f"{s3.endpoint}/{s3.bucket}?list-type=2&prefix={prefix}/&max-keys=1000", timeout=10
    ) as reply:
        body = reply.read().decode()
    return [part.split("</Key>")[0] for part in body.split("<Key>")[1:]]


def chunks_on_s3(s3: MotoS3, uri: str, store: str = "default") -> int:
    return LanceVectorStore(f"{uri}/{store}", 384, storage_options=s3.options).count()


class Clock:
    """A monotonic clock the test moves by hand (only the store's sync reads it)."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


async def test_remember_recall_and_reopen_keep_the_tables_on_s3(tmp_path: Path, s3: MotoS3):
    uri = s3.fresh_uri()
    async with open_engine(tmp_path / "a", s3, uri) as engine:
        await engine.remember(ADA, dataset_name="notes")
        assert "Lovelace" in await chunk_texts(engine, "Who wrote the first program?")
        assert "Lovelace" in await chunk_texts(engine, "Analytical Engine", lexical=True)
    keys = s3_keys(s3, uri)
    assert any(k.startswith(f"{uri.split('/')[-1]}/default/chunks.lance/") for k in keys)
    assert not list((tmp_path / "a").rglob("*.lance"))  # nothing of LanceDB in the data dir
    assert chunks_on_s3(s3, uri) == 1

    async with open_engine(tmp_path / "a", s3, uri) as engine:  # the same data dir, reopened
        assert "Lovelace" in await chunk_texts(engine, "Who wrote the first program?")
    async with open_engine(tmp_path / "b", s3, uri) as engine:  # a new replica: tenant found on S3
        assert "Lovelace" in await chunk_texts(engine, "Analytical Engine", lexical=True)
        datasets = await engine.datasets()
        assert [d.name for d in datasets] == ["notes"]


async def test_forget_removes_the_rows_from_s3_and_from_other_mirrors(tmp_path: Path, s3: MotoS3):
    uri = s3.fresh_uri()
    async with (
        open_engine(tmp_path / "a", s3, uri) as writer,
        open_engine(tmp_path / "b", s3, uri, vector_refresh_s=0) as reader,
    ):
        ada = await writer.remember(ADA, dataset_name="shared")
        await writer.remember(LYON, dataset_name="shared")
        assert "Lovelace" in await chunk_texts(reader, "first program Analytical Engine")
        assert await writer.forget(data_id=ada.data_ids) == 1
        assert chunks_on_s3(s3, uri) == 1
        assert "Lovelace" not in await chunk_texts(reader, "first program Analytical Engine")
        assert "Lyon" in await chunk_texts(reader, "silk weavers Lyon")
        assert "Lovelace" not in await chunk_texts(writer, "first program Analytical Engine")


async def test_a_write_is_seen_by_another_mirror_once_the_refresh_interval_passed(
    tmp_path: Path, s3: MotoS3, monkeypatch: pytest.MonkeyPatch
):
    clock = Clock()
    monkeypatch.setattr(tenant_module, "time", SimpleNamespace(monotonic=clock))
    uri = s3.fresh_uri()
    async with (
        open_engine(tmp_path / "a", s3, uri) as writer,
        open_engine(tmp_path / "b", s3, uri, vector_refresh_s=30) as reader,
    ):
        await writer.remember(ADA, dataset_name="shared")
        assert "Lovelace" in await chunk_texts(reader, "first program Analytical Engine")
        await writer.remember(LYON, dataset_name="shared")
        clock.now += 29.0  # within the bound: the reader need not ask S3 yet
        assert "Lyon" not in await chunk_texts(reader, "silk weavers Lyon")
        clock.now += 1.5  # past it: the next read catches up
        assert "Lyon" in await chunk_texts(reader, "silk weavers Lyon")
        assert "Lyon" in await chunk_texts(reader, "silk weavers", lexical=True)


CHILD = textwrap.dedent(
    """
    import asyncio, sys
    from recall_engine import RecallEngine
    from recall_engine.testing import DeterministicEmbedder

    async def main():
        async with RecallEngine(sys.argv[1], embedder=DeterministicEmbedder(),
                          vector_uri=sys.argv[2]) as engine:
            result = await engine.remember(sys.argv[3], dataset_name="shared")
            print(result.new_data_ids[0])

    asyncio.run(main())
    """
)


def child_env(s3: MotoS3) -> dict[str, str]:
    """The keys reach the child through AWS's own variables, never its command line."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
    env.update(
        AWS_ENDPOINT_URL=s3.endpoint,
        AWS_ALLOW_HTTP="true",
        AWS_REGION="us-east-1",
        AWS_ACCESS_KEY_ID=s3.options["aws_access_key_id"],
        AWS_SECRET_ACCESS_KEY=SECRET,
        PYTHONPATH=str(ROOT),
    )
    return env


async def test_another_process_appends_and_this_one_sees_it(tmp_path: Path, s3: MotoS3):
    uri = s3.fresh_uri()
    async with open_engine(tmp_path / "a", s3, uri, vector_refresh_s=0) as engine:
        await engine.remember(ADA, dataset_name="shared")
        assert "Lyon" not in await chunk_texts(engine, "silk weavers Lyon")
        child = subprocess.run(
            [sys.executable, "-c", CHILD, str(tmp_path / "b"), uri, LYON],
            env=child_env(s3),
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert child.returncode == 0, child.stderr[-2000:]
        assert SECRET not in child.stdout + child.stderr
        assert "Lyon" in await chunk_texts(engine, "silk weavers Lyon")
        assert "Lovelace" in await chunk_texts(engine, "first program Analytical Engine")
    assert chunks_on_s3(s3, uri) == 2


@pytest.mark.parametrize(
    "uri",
    ["/srv/vectors", "file:///srv/vectors", "gs://bucket/x", "s3://", "s3://Bad_Bucket/x"],
)
def test_a_vector_uri_that_is_not_s3_is_refused_by_name(uri: str, tmp_path: Path):
    with pytest.raises(ConfigError, match="vector_uri"):
        RecallConfig(data_dir=tmp_path, vector_uri=uri)


def test_a_vector_uri_from_the_environment_names_the_variable(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
):
    monkeypatch.setenv("RECALL_ENGINE_VECTOR_URI", "/srv/vectors")
    with pytest.raises(ConfigError, match=r"\$RECALL_ENGINE_VECTOR_URI"):
        RecallConfig.load(data_dir=tmp_path)


def test_keys_in_the_uri_are_refused_without_echoing_them(tmp_path: Path):
    with pytest.raises(ConfigError, match="vector_storage_options") as caught:
        RecallConfig(data_dir=tmp_path, vector_uri=f"s3://AKIA:{SECRET}@bucket/x")
    assert SECRET not in str(caught.value)


async def test_a_missing_bucket_fails_naming_the_setting_and_changes_nothing(
    tmp_path: Path, s3: MotoS3, caplog: pytest.LogCaptureFixture
):
    caplog.set_level(logging.DEBUG)
    uri = "s3://no-such-bucket-here/x"
    async with open_engine(tmp_path / "a", s3, uri) as engine:
        with pytest.raises(StoreError, match="bucket does not exist") as caught:
            await engine.remember(ADA, dataset_name="notes")
        assert "vector_uri" in str(caught.value) and SECRET not in str(caught.value)
        assert not (tmp_path / "a" / "tenants").exists() or not any(
            (tmp_path / "a" / "tenants").iterdir()
        )
        with pytest.raises(StoreError, match="bucket does not exist"):
            await engine.recall("anything", query_type=SearchType.CHUNKS)
    assert SECRET not in caplog.text


async def test_an_unreachable_endpoint_fails_naming_the_setting_and_changes_nothing(
    tmp_path: Path, s3: MotoS3, caplog: pytest.LogCaptureFixture
):
    caplog.set_level(logging.DEBUG)
    nowhere = {**s3.options, "endpoint": f"http://127.0.0.1:{free_port()}"}
    nowhere["client_max_retries"] = "0"
    async with RecallEngine(
        tmp_path / "a",
        embedder=DeterministicEmbedder(),
        vector_uri=s3.fresh_uri(),
        vector_storage_options=nowhere,
    ) as engine:
        with pytest.raises(StoreError, match="endpoint cannot be reached") as caught:
            await engine.remember(ADA, dataset_name="notes")
        assert "vector_storage_options" in str(caught.value)
        assert SECRET not in str(caught.value)
        assert not (tmp_path / "a" / "tenants").exists() or not any(
            (tmp_path / "a" / "tenants").iterdir()
        )
    assert SECRET not in caplog.text


async def test_tables_of_another_embedding_model_are_refused(tmp_path: Path, s3: MotoS3):
    uri = s3.fresh_uri()
    async with open_engine(tmp_path / "a", s3, uri) as engine:
        await engine.remember(ADA, dataset_name="notes")
    async with RecallEngine(
        tmp_path / "b",
        embedder=DeterministicEmbedder(dimension=64),
        vector_uri=uri,
        vector_storage_options=s3.options,
    ) as other:
        with pytest.raises(EmbeddingModelMismatchError, match="deterministic-hash-384"):
            await other.remember(LYON, dataset_name="notes")


def test_the_keys_never_show_in_repr_dumps_or_errors(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, s3: MotoS3
):
    for name in ("AWS_ENDPOINT_URL", "AWS_REGION", "AWS_ALLOW_HTTP", "AWS_SESSION_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "AKIAFROMTHEENV")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", SECRET)
    config = RecallConfig.load(
        data_dir=tmp_path,
        vector_uri="s3://some-bucket/prefix/",
        vector_storage_options={"endpoint": s3.endpoint, "allow_http": True},
    )
    assert config.vector_uri == "s3://some-bucket/prefix"
    assert config.vector_options() == {
        "endpoint": s3.endpoint,
        "allow_http": "true",
        "aws_access_key_id": "AKIAFROMTHEENV",
        "aws_secret_access_key": SECRET,
    }
    shown = [
        repr(config),
        str(config),
        config.model_dump_json(),
        json.dumps(config.model_dump(mode="json")),
    ]
    assert all(SECRET not in text and "AKIAFROMTHEENV" not in text for text in shown)
    assert s3.endpoint in repr(config)  # what is not a key stays readable
    copied = RecallConfig.model_validate({**config.model_dump(), "chunk_size": 100})
    assert copied.vector_options()["aws_secret_access_key"] == SECRET
    with pytest.raises(ConfigError) as caught:
        RecallConfig(vector_storage_options={"aws_secret_access_key": [SECRET]})
    assert SECRET not in str(caught.value)


@pytest.mark.slow
async def test_four_processes_append_at_once_and_every_write_is_seen(tmp_path: Path, s3: MotoS3):
    uri = s3.fresh_uri()
    texts = [f"Report {n}: the {word} pipeline failed on node {n}." for n, word in
             enumerate(["ingest", "billing", "search", "backup"])]  # fmt: skip
    async with open_engine(tmp_path / "main", s3, uri, vector_refresh_s=0) as engine:
        await engine.remember(ADA, dataset_name="shared")  # the tenant exists before they start
        children = [
            subprocess.Popen(
                [sys.executable, "-c", CHILD, str(tmp_path / f"child{n}"), uri, text],
                env=child_env(s3),
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            for n, text in enumerate(texts)
        ]
        for child in children:
            _, err = child.communicate(timeout=300)
            assert child.returncode == 0, err[-2000:]
        seen = await chunk_texts(engine, "pipeline failed on node")
        assert all(f"Report {n}:" in seen for n in range(4))
    assert chunks_on_s3(s3, uri) == 5


async def test_reads_fail_clearly_while_the_s3_server_is_down(tmp_path: Path):
    proc, own = moto_s3.start()
    try:
        options = {**own.options, "client_max_retries": "0"}
        async with RecallEngine(
            tmp_path / "a",
            embedder=DeterministicEmbedder(),
            vector_uri=own.fresh_uri(),
            vector_storage_options=options,
            vector_refresh_s=0,
        ) as engine:
            await engine.remember(ADA, dataset_name="notes")
            moto_s3.stop(proc)
            with pytest.raises(StoreError, match="endpoint cannot be reached") as caught:
                await engine.recall("first program", query_type=SearchType.CHUNKS)
            assert "Could not read the vector tables" in str(caught.value)
            assert SECRET not in str(caught.value)
    finally:
        moto_s3.stop(proc)
