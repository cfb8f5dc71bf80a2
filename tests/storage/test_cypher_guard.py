"""The Cypher guard: what it refuses, and reads it must leave alone."""

from __future__ import annotations

import pytest

from recall_engine.errors import InvalidInputError
from recall_engine.storage.cypher_guard import check_read_query

REFUSED = {
    "MATCH (n) DETACH DELETE n": "read-only",
    "MATCH (n) SET n.x = 1": "read-only",
    "create (n:X)": "read-only",
    "MATCH (n) RETURN n; MATCH (m) RETURN m": "one statement",
    "LOAD FROM 'x.csv' RETURN *": "reads the graph only",
    "COPY Chunk TO '/tmp/out.csv'": "reads the graph only",
    "EXPORT DATABASE '/tmp/x'": "reads the graph only",
    "ATTACH '/tmp/db' AS o (dbtype kuzu)": "reads the graph only",
    "CALL threads=4": "CALL only",
    "CALL read_csv_serial('/etc/passwd') RETURN *": "CALL only",
    "CALL project_graph('g', ['Entity'], ['RELATES'])": "CALL only",
    "UNWIND range(1, 2000000) AS x RETURN x": "generate over",
    "UNWIND range(1, 1000) AS a UNWIND range(1, 10000) AS b RETURN count(*)": "generate over",
    "MATCH (c:Chunk) RETURN range(1, c.chunk_index)": "literal arguments",
    "RETURN repeat('abcd', 1000000)": "generate over",
    "MATCH (c:Chunk) RETURN repeat(c.text, 10)": "literal arguments",
    "RETURN lpad('a', $n, 'b')": "literal arguments",
    "RETURN list_transform([1, 2], x -> [x])": "not allowed",
    "RETURN LIST_CONCAT([1], [2])": "not allowed",
}

ALLOWED = [
    "MATCH (n:Entity) RETURN n.name LIMIT 5",
    "MATCH (n:Entity) WHERE n.name = 'DELETE everything; CREATE' RETURN n",
    'MATCH (n:Entity) WHERE n.name = "LOAD FROM x" RETURN n',
    "MATCH (n:Entity) RETURN n.set, n.load, {create: 1} AS m",
    "MATCH (`delete`:Entity) RETURN `delete`.name",
    "MATCH (n:Entity) // DELETE n\nRETURN n",
    "MATCH (n:Entity) RETURN n;",
    "UNWIND range(1, 1000) AS x RETURN sum(x)",
    "RETURN size(repeat('ab', 1000)), lpad('7', 3, '0')",
    "CALL show_tables() RETURN *",
    "CALL table_info('Entity') RETURN *",
    "MATCH (a:Entity)-[r:RELATES*1..3]->(b:Entity) RETURN a.name, b.name LIMIT 10",
    "MATCH (n) WHERE n.name STARTS WITH $prefix RETURN n",
]


@pytest.mark.parametrize("query", list(REFUSED))
def test_refused(query):
    with pytest.raises(InvalidInputError, match=REFUSED[query]):
        check_read_query(query)


@pytest.mark.parametrize("query", ALLOWED)
def test_allowed(query):
    check_read_query(query)
