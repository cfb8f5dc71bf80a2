"""Tenant and sub-tenant ids map to stores one to one: no two ids share a store
name or a folder, on any file system, and stores made before still open."""

from __future__ import annotations

import hashlib
import sqlite3
import unicodedata

import pytest
from hypothesis import given
from hypothesis import strategies as st

from recall_engine.config import RecallConfig, dir_name
from recall_engine.core.errors import InvalidInputError
from recall_engine.tenants.errors import TenantAlreadyExistsError
from recall_engine.tenants.ids import safe_name
from recall_engine.tenants.registry import TenantRegistry

ids = st.text(
    st.characters(blacklist_categories=("Cc", "Cs")),
    min_size=1,
    max_size=100,
)


def _folder(raw: str) -> str | None:
    try:
        return dir_name(safe_name(raw, what="tenant_id"))
    except InvalidInputError:
        return None


def _same_on_any_fs(a: str, b: str) -> bool:
    def fold(x: str) -> str:
        return unicodedata.normalize("NFC", x).casefold()

    return fold(a) == fold(b)


@given(ids, ids)
def test_distinct_ids_never_share_a_folder(a, b):
    fa, fb = _folder(a), _folder(b)
    if a == b or fa is None or fb is None:
        return
    assert not _same_on_any_fs(fa, fb), (a, b, fa)


@given(ids)
def test_a_folder_is_one_portable_path_component(raw):
    folder = _folder(raw)
    if folder is None:
        return
    assert folder.isascii() and folder == folder.lower()
    assert 0 < len(folder) <= 200 and folder not in (".", "..")
    assert "/" not in folder and "\\" not in folder and not folder.endswith(".")


LEGACY = "org-team." + hashlib.sha256(b"org/team").hexdigest()[:10]


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("org/team", LEGACY),  # the pair of the issue
        ("Acme", "acme"),  # case-insensitive file systems
        ("\uac00", "\u1100\u1161"),  # NFC and NFD of one visible Hangul syllable
        ("acme.", "acme"),  # Windows drops a trailing dot
        ("con", "=63on"),
        ("a b", "a=20b"),
        ("x" * 60 + "." + "0" * 32, "x" * 60),
        ("ü" * 100, "ü" * 99 + "u"),  # both past the 200-character folder name
    ],
)
def test_adversarial_pairs_get_distinct_folders(a, b):
    fa, fb = _folder(a), _folder(b)
    assert fa is not None
    assert fb is None or not _same_on_any_fs(fa, fb)


def test_bad_ids_are_refused_with_the_field_named():
    for bad in ("", " ", "x" * 101, "a\x00b", "a\ud800"):
        with pytest.raises(InvalidInputError, match="tenant_id"):
            safe_name(bad, what="tenant_id")


def _old_registry(data_dir, tenants, subs=()):
    """A registry file as the version before this one wrote it."""
    data_dir.mkdir(parents=True, exist_ok=True)
    db = sqlite3.connect(data_dir / "tenants.sqlite3")
    db.execute("CREATE TABLE tenants (id TEXT PRIMARY KEY, schema TEXT NOT NULL, created_at TEXT)")
    db.execute("CREATE TABLE api_keys (digest TEXT PRIMARY KEY, tenant_id TEXT, created_at TEXT)")
    db.execute("CREATE TABLE sub_tenants (tenant_id TEXT, sub_tenant_id TEXT, "
               "PRIMARY KEY (tenant_id, sub_tenant_id))")  # fmt: skip
    for n, tenant in enumerate(tenants):
        db.execute("INSERT INTO tenants VALUES (?, '[]', ?)", (tenant, f"2025-01-0{n + 1}"))
    db.executemany("INSERT INTO sub_tenants VALUES (?, ?)", subs)
    db.commit()
    db.close()


def test_rows_written_before_keep_their_store_and_the_newer_of_a_shared_pair_moves(tmp_path):
    _old_registry(tmp_path, ["org/team", LEGACY, "t/3"], subs=[("t/3", "user/1")])
    registry = TenantRegistry(tmp_path)
    assert registry.store_name("org/team") == LEGACY  # the older of the pair keeps the store
    assert registry.store_name(LEGACY) not in (LEGACY, "org-team")
    assert registry.store_name("t/3") == "t-3." + hashlib.sha256(b"t/3").hexdigest()[:10]
    legacy_sub = "user-1." + hashlib.sha256(b"user/1").hexdigest()[:10]
    assert registry.sub_tenant_name("t/3", "user/1") == legacy_sub
    assert registry.sub_tenant_name("t/3", "user/2") != legacy_sub
    with pytest.raises(InvalidInputError, match="sub_tenant_id"):
        registry.sub_tenant_name("t/3", legacy_sub)  # that name is user/1's data
    registry.close()


def test_an_id_naming_another_tenants_store_is_refused(tmp_path):
    _old_registry(tmp_path, ["org/team"])
    registry = TenantRegistry(tmp_path)
    with pytest.raises(TenantAlreadyExistsError, match="org/team"):
        registry.create(LEGACY, [])
    with pytest.raises(TenantAlreadyExistsError):
        registry.store_name(LEGACY)  # the /api/v1 path asks this too
    assert registry.create("org/team2", []).store != LEGACY
    registry.close()


def test_folders_made_before_still_open_and_a_case_twin_is_refused(tmp_path):
    config = RecallConfig(data_dir=tmp_path)
    (tmp_path / "tenants" / "Acme").mkdir(parents=True)
    assert config.tenant_dir("Acme") == tmp_path / "tenants" / "Acme"
    assert config.tenant_dir("beta") == tmp_path / "tenants" / "beta"
    assert config.tenant_dir("Beta") == tmp_path / "tenants" / "=42eta"
    with pytest.raises(InvalidInputError, match="Acme"):
        config.tenant_dir("acme")  # one folder on a case-insensitive file system
