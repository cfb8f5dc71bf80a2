"""Alpha selection, filter parsing and the tenant registry (recency is the
pipeline's: ``test_one_search_core``)."""

from __future__ import annotations

import pytest

from recall_engine.tenants.errors import InvalidFilterError, TenantAlreadyExistsError
from recall_engine.tenants.hybrid import choose_alpha, parse_filters
from recall_engine.tenants.registry import ADMIN, TenantRegistry


@pytest.mark.parametrize(
    ("query", "rare", "low", "high"),
    [
        ('"error budget" policy', False, 0.0, 0.3),
        ("ERR_4021 on checkout", False, 0.0, 0.4),
        ("What does the user prefer for breakfast?", False, 0.8, 1.0),
        ("breakfast", False, 0.4, 0.6),
        ("Where does Zanzibarite come from?", True, 0.5, 0.7),
    ],
)
def test_auto_alpha_leans_as_documented(query, rare, low, high):
    assert low <= choose_alpha(query, has_rare_term=rare) <= high


def test_filters_are_exact_equalities_on_declared_fields():
    where = parse_filters(
        {"dept": "eng", "additional_metadata": {"source": "crm"}}, frozenset({"dept"})
    )
    assert where.matches(
        {"tenant_metadata": {"dept": "eng"}, "additional_metadata": {"source": "crm"}}
    )
    assert not where.matches({"tenant_metadata": {"dept": "eng"}, "additional_metadata": {}})
    assert not where.matches(
        {"tenant_metadata": {"dept": "Eng"}, "additional_metadata": {"source": "crm"}}
    )
    assert parse_filters({"n": 1}, frozenset({"n"})).matches({"tenant_metadata": {"n": 1}})
    assert not parse_filters({"n": 1}, frozenset({"n"})).matches({"tenant_metadata": {"n": True}})


@pytest.mark.parametrize(
    ("filters", "needle"),
    [
        ({"team": "a"}, "'team'"),
        ({"dept": {"$gte": 1}}, "operators"),
        ({"dept": ["a", "b"]}, "operators"),
        ({"$and": "x"}, "operators"),
        ({"additional_metadata": "x"}, "object"),
        ({"additional_metadata": {"$regex": "a.*"}}, "operators"),
    ],
)
def test_bad_filters_are_refused_by_name(filters, needle):
    with pytest.raises(InvalidFilterError, match=needle.replace("$", r"\$")):
        parse_filters(filters, frozenset({"dept"}))


def test_registry_persists_tenants_and_hashed_keys(tmp_path):
    registry = TenantRegistry(tmp_path)
    registry.create("acme", [{"name": "dept", "enable_match": True}, {"name": "x"}])
    registry.add_key("k" * 20, "acme")
    registry.add_key("a" * 20, ADMIN)
    with pytest.raises(TenantAlreadyExistsError):
        registry.create("acme", [])
    registry.close()
    again = TenantRegistry(tmp_path)
    assert again.get("acme").filterable == frozenset({"dept"})
    assert again.key_tenant("k" * 20) == "acme"
    assert again.key_tenant("a" * 20) == ADMIN
    assert again.key_tenant("k" * 19 + "x") is None
    assert b"k" * 20 not in (tmp_path / "tenants.sqlite3").read_bytes()
    with pytest.raises(ValueError, match="16 characters"):
        again.add_key("short", "acme")
    again.close()
