"""``AttributeFilter``: the operator query language of metadata filters, as
HydraDB v2's ``attributes`` use it."""

from __future__ import annotations

import pytest

from recall_engine.errors import InvalidInputError
from recall_engine.read.attributes import MAX_CONDITIONS, AttributeFilter
from recall_engine.read.filters import ChunkFilter

ROW = {
    "dept": "eng",
    "level": 3,
    "score": 0.5,
    "tags": ["a", "b"],
    "active": True,
    "tenant_metadata": {"region": "eu"},
    "title": "Straße",
    "teams": "billing, support",
}


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ({"dept": "eng"}, True),
        ({"dept": {"$eq": "ops"}}, False),
        ({"dept": {"$ne": "ops"}}, True),
        ({"missing": {"$ne": "x"}}, True),
        ({"level": {"$gt": 2, "$lte": 3}}, True),
        ({"level": {"$lt": 3}}, False),
        ({"level": {"$gt": "2"}}, False),  # no ordering across types
        ({"score": {"$gte": 0.5}}, True),
        ({"dept": {"$in": ["ops", "eng"]}}, True),
        ({"dept": {"$nin": ["ops", "eng"]}}, False),
        ({"tags": "b"}, True),  # a list field matches a member
        ({"active": 1}, False),  # a bool is not a number
        ({"active": True}, True),
        ({"missing": {"$exists": False}}, True),
        ({"dept": {"$exists": False}}, False),
        ({"tenant_metadata.region": "eu"}, True),  # a dotted path into nested metadata
        ({"tenant_metadata.region": {"$in": ["us"]}}, False),
        ({"$or": [{"dept": "ops"}, {"level": 3}]}, True),
        ({"$and": [{"dept": "eng"}, {"level": {"$gt": 5}}]}, False),
        ({"$nor": [{"dept": "ops"}]}, True),
        ({"$not": {"dept": "eng"}}, False),
        ({"level": {"$not": {"$gt": 5}}}, True),
        ({"missing": {"$gt": 1}}, False),
        ({"title": {"$iin": ["STRASSE", "x"]}}, True),  # Unicode case folding
        ({"title": {"$iin": ["strass"]}}, False),  # a whole value, not a prefix
        ({"tags": {"$iin": ["B"]}}, True),
        ({"level": {"$iin": ["3"]}}, False),  # strings only
        ({"missing": {"$not": {"$iin": ["x"]}}}, True),
        ({"teams": {"$contains": "support"}}, True),  # a member of a comma-joined string
        ({"teams": {"$contains": "sup"}}, False),  # never a substring
        ({"teams": {"$eq": "support"}}, False),
        ({"dept": {"$contains": "eng"}}, True),
        ({"tags": {"$contains": "a"}}, True),  # a member of a list
        ({"teams": {"$contains_any": ["ops", "billing"]}}, True),
        ({"teams": {"$contains_any": ["ops"]}}, False),
        ({"level": {"$contains_any": ["3"]}}, False),
    ],
)
def test_queries_match_as_mongodb_does(query, expected):
    assert AttributeFilter.parse(query).matches(ROW) is expected


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ("dept", "must be an object"),
        ({"dept": {"$regex": "e.*"}}, "unknown operator '\\$regex'"),
        ({"$gt": 1}, "compares a field"),
        ({"dept": {"$in": "eng"}}, "takes a list"),
        ({"dept": {"$in": list(range(501))}}, "at most 500"),
        ({"level": {"$gt": [1]}}, "one number or string"),
        ({"level": {"$gt": True}}, "one number or string"),
        ({"dept": {"$exists": "yes"}}, "true or false"),
        ({"dept": {"$eq": {"a": 1}}}, "compares with strings"),
        ({"score": {"$eq": float("nan")}}, "finite"),
        ({"$or": []}, "non-empty list"),
        ({"level": {"$not": 3}}, "object of operators"),
        ({"title": {"$iin": "refunds"}}, "\\$iin takes a list of at most 500 strings"),
        ({"title": {"$iin": [1]}}, "\\$iin takes a list"),
        ({"title": {"$iin": ["x"] * 501}}, "at most 500"),
        ({"$iin": ["x"]}, "compares a field"),
        ({"teams": {"$contains": ["a"]}}, "\\$contains takes one string"),
        ({"teams": {"$contains": None}}, "\\$contains takes one string"),
        ({"teams": {"$contains_any": "a"}}, "\\$contains_any takes a list"),
        ({"teams": {"$contains_any": ["a", 2]}}, "\\$contains_any takes a list"),
        ({f"k{n}": n for n in range(MAX_CONDITIONS + 1)}, "more than"),
    ],
)
def test_a_bad_query_names_what_is_wrong(query, message):
    with pytest.raises(InvalidInputError, match=message):
        AttributeFilter.parse(query)


def test_deep_nesting_is_refused():
    query: dict = {"dept": "eng"}
    for _ in range(10):
        query = {"$and": [query]}
    with pytest.raises(InvalidInputError, match="nests more than"):
        AttributeFilter.parse(query)


def test_a_chunk_filter_holds_equalities_and_a_query_at_once():
    equals = ChunkFilter(equals=((("dept",), "eng"),))
    query = ChunkFilter(attributes=AttributeFilter.parse({"level": {"$gte": 3}}))
    both = equals.and_(query)
    assert both.narrows and both.matches(ROW)
    assert not both.matches({**ROW, "level": 1})
    assert not both.matches({**ROW, "dept": "ops"})
    stricter = both.and_(ChunkFilter(attributes=AttributeFilter.parse({"level": {"$lt": 3}})))
    assert not stricter.matches(ROW)
    assert not ChunkFilter().narrows
