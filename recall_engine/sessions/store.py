"""Session caches: the question/context/answer entries of each (user, session_id).

Stored in one SQLite file in the data dir (or tables of the shared state store,
``state.postgres``), so sessions survive a restart. A
session expires ``ttl_s`` seconds after its last entry was written (7 days by
default): its entries are then never returned and are deleted on the next
write. Sessions are keyed by tenant and user, so one user can never read
another user's session of the same id.

Feedback on an entry (a score from 1 to 5) is also added to a per-element tally
(graph elements and chunks the answer used), kept apart from the sessions so
that it outlives them; ``feedback_influence`` in recall() reads that tally.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path

from recall_engine.core.cells import Cell
from recall_engine.core.errors import InvalidInputError
from recall_engine.core.models import ResponseQAEntry
from recall_engine.state.sql import Connection, SqlDatabase
from recall_engine.state.sqlite import SqliteFile

FILE_NAME = "sessions.sqlite3"
DEFAULT_TTL_S = 7 * 24 * 3600.0
MAX_CONTEXT_CHARS = 20_000
_SCHEMA = """
CREATE TABLE IF NOT EXISTS sessions (
    tenant_id TEXT NOT NULL, user_id TEXT NOT NULL, session_id TEXT NOT NULL,
    last_active REAL NOT NULL, PRIMARY KEY (tenant_id, user_id, session_id));
CREATE TABLE IF NOT EXISTS qa (
    qa_id TEXT PRIMARY KEY, tenant_id TEXT NOT NULL, user_id TEXT NOT NULL,
    session_id TEXT NOT NULL, time REAL NOT NULL, question TEXT NOT NULL,
    context TEXT NOT NULL, answer TEXT NOT NULL, element_ids TEXT NOT NULL,
    dataset_ids TEXT NOT NULL, feedback_score INTEGER, feedback_text TEXT);
CREATE INDEX IF NOT EXISTS qa_session ON qa (tenant_id, user_id, session_id, time);
CREATE TABLE IF NOT EXISTS element_feedback (
    tenant_id TEXT NOT NULL, element_id TEXT NOT NULL, score_sum REAL NOT NULL,
    count INTEGER NOT NULL, PRIMARY KEY (tenant_id, element_id));
"""


@dataclass(frozen=True)
class QARecord:
    """One cached question and answer, with what it rests on."""

    qa_id: str
    session_id: str
    time: float
    question: str
    context: str
    answer: str
    element_ids: tuple[str, ...]
    """Graph elements and chunks the answer used (``chunk:<id>``, ``entity:<id>``, ...)."""
    dataset_ids: tuple[str, ...]
    feedback_score: int | None = None
    feedback_text: str | None = None

    def entry(self) -> ResponseQAEntry:
        """The record as recall() returns it."""
        return ResponseQAEntry(
            time=datetime.fromtimestamp(self.time, UTC),
            qa_id=self.qa_id,
            question=self.question,
            context=self.context,
            answer=self.answer,
            feedback_text=self.feedback_text,
            feedback_score=self.feedback_score,
        )


_COLUMNS = (
    "qa_id, session_id, time, question, context, answer, element_ids, dataset_ids, "
    "feedback_score, feedback_text"
)


def _record(row: Sequence[Cell]) -> QARecord:
    qa_id, session_id, at, question, context, answer, elements, datasets, score, text = row
    return QARecord(
        qa_id=qa_id,
        session_id=session_id,
        time=at,
        question=question,
        context=context,
        answer=answer,
        element_ids=tuple(json.loads(elements)),
        dataset_ids=tuple(json.loads(datasets)),
        feedback_score=score,
        feedback_text=text,
    )


class SessionStore:
    """Session caches and feedback of every tenant in a data dir. Blocking: call it
    off the event loop. ``clock`` returns seconds since the epoch (tests move it)."""

    def __init__(
        self,
        source: Path | SqlDatabase,
        *,
        ttl_s: float = DEFAULT_TTL_S,
        clock: Callable[[], float] = time.time,
    ) -> None:
        """``source``: the data dir (its ``sessions.sqlite3``), or a state database."""
        self._owned = isinstance(source, Path)
        self._db: SqlDatabase = (
            SqliteFile(source / FILE_NAME, _SCHEMA, wal=True)
            if isinstance(source, Path)
            else source
        )
        self.ttl_s = ttl_s
        self.clock = clock

    def close(self) -> None:
        """Close the file (a shared state database stays open: its owner closes it)."""
        if self._owned:
            self._db.close()

    def entries(
        self, tenant_id: str, user_id: str, session_id: str, *, last: int | None = None
    ) -> list[QARecord]:
        """The live entries of a session, oldest first ([] when expired or unknown);
        only its ``last`` most recent when given (one read of that many rows)."""
        key = (tenant_id, user_id, session_id)
        with self._db.read() as conn:
            if conn is None:
                return []
            row = conn.execute(
                "SELECT last_active FROM sessions WHERE tenant_id = ? AND user_id = ? "
                "AND session_id = ?",
                key,
            ).fetchone()
            if row is None or row[0] < self.clock() - self.ttl_s:
                return []
            if last is None:
                rows = conn.execute(
                    f"SELECT {_COLUMNS} FROM qa WHERE tenant_id = ? AND user_id = ? "
                    "AND session_id = ? ORDER BY time, rowid",
                    key,
                ).fetchall()
            else:
                rows = conn.execute(
                    f"SELECT {_COLUMNS} FROM qa WHERE tenant_id = ? AND user_id = ? "
                    "AND session_id = ? ORDER BY time DESC, rowid DESC LIMIT ?",
                    (*key, last),
                ).fetchall()[::-1]
        return [_record(r) for r in rows]

    def append(
        self,
        tenant_id: str,
        user_id: str,
        session_id: str,
        *,
        question: str,
        context: str,
        answer: str,
        element_ids: Iterable[str] = (),
        dataset_ids: Iterable[str] = (),
    ) -> QARecord:
        """Add an entry to a session (starting it, or a new one after expiry).

        An entry identical to one the session holds (the same question, context,
        answer, elements and datasets: the same question asked again of the same
        memory) is not added twice: that entry moves to now and is returned, with
        its ``qa_id`` and rating, so the session's cache never repeats an answer.

        Returns:
            The entry written, or the identical one already there.
        """
        now = self.clock()
        record = QARecord(
            qa_id=str(uuid.uuid4()),
            session_id=session_id,
            time=now,
            question=question,
            context=context[:MAX_CONTEXT_CHARS],
            answer=answer,
            element_ids=tuple(dict.fromkeys(element_ids)),
            dataset_ids=tuple(dict.fromkeys(dataset_ids)),
        )
        key = (tenant_id, user_id, session_id)
        with self._db.write() as conn:
            self._purge(conn, now)
            conn.execute(
                "INSERT INTO sessions VALUES (?, ?, ?, ?) ON CONFLICT (tenant_id, user_id, "
                "session_id) DO UPDATE "
                "SET last_active = excluded.last_active",
                (*key, now),
            )
            same = _identical(conn, key, record)
            if same is not None:
                conn.execute("UPDATE qa SET time = ? WHERE qa_id = ?", (now, same.qa_id))
                return replace(same, time=now)
            conn.execute(
                f"INSERT INTO qa ({_COLUMNS}, tenant_id, user_id) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, NULL, NULL, ?, ?)",
                (
                    record.qa_id,
                    session_id,
                    now,
                    record.question,
                    record.context,
                    record.answer,
                    json.dumps(record.element_ids),
                    json.dumps(record.dataset_ids),
                    tenant_id,
                    user_id,
                ),
            )
        return record

    def _purge(self, conn: Connection, now: float) -> None:
        expired = conn.execute(
            "SELECT tenant_id, user_id, session_id FROM sessions WHERE last_active < ?",
            (now - self.ttl_s,),
        ).fetchall()
        for key in expired:
            where = "tenant_id = ? AND user_id = ? AND session_id = ?"
            conn.execute(f"DELETE FROM qa WHERE {where}", key)
            conn.execute(f"DELETE FROM sessions WHERE {where}", key)

    def set_feedback(
        self,
        tenant_id: str,
        user_id: str,
        session_id: str,
        qa_id: str,
        *,
        score: int,
        text: str | None,
    ) -> QARecord:
        """Rate an entry; a new rating replaces the old one (in the tally too).

        Raises:
            InvalidInputError: no such entry in this user's live session.
        """
        live = {r.qa_id: r for r in self.entries(tenant_id, user_id, session_id)}
        old = live.get(qa_id)
        if old is None:
            raise InvalidInputError(
                f"No entry {qa_id!r} in session {session_id!r} of this user (or the session "
                "expired); use the qa_id from the answer's metadata['qa_id']."
            )
        with self._db.write() as conn:
            conn.execute(
                "UPDATE qa SET feedback_score = ?, feedback_text = ? WHERE qa_id = ?",
                (score, text, qa_id),
            )
            for element in old.element_ids:
                previous = old.feedback_score
                conn.execute(
                    "INSERT INTO element_feedback VALUES (?, ?, ?, 1) ON CONFLICT (tenant_id, "
                    "element_id) DO UPDATE SET score_sum = element_feedback.score_sum "
                    "+ excluded.score_sum, count = element_feedback.count + ?",
                    (
                        tenant_id,
                        element,
                        score - (previous or 0),
                        0 if previous is not None else 1,
                    ),
                )
        return QARecord(**{**old.__dict__, "feedback_score": score, "feedback_text": text})

    def forget(
        self, tenant_id: str, *, chunk_ids: Iterable[str] = (), dataset_ids: Iterable[str] = ()
    ) -> int:
        """Delete every entry of the tenant's sessions that rests on one of
        ``chunk_ids`` or came from one of ``dataset_ids``, and the feedback tallies
        of those chunks: ``forget()`` calls it, so that a cached answer and its
        context do not outlive what they were built from in any listing. In a SQLite
        file the deleted rows' bytes are overwritten and the WAL is emptied; Postgres
        keeps them in dead tuples until its next vacuum.

        Args:
            chunk_ids: the chunks forgotten.
            dataset_ids: the datasets forgotten.

        Returns:
            The number of entries deleted.

        Raises:
            StoreError: the store could not be read or written (nothing is deleted).
        """
        chunks = {f"chunk:{c}" for c in chunk_ids}
        datasets = set(dataset_ids)
        if not chunks and not datasets:
            return 0
        with self._erasing() as conn:
            rows = conn.execute(
                "SELECT qa_id, element_ids, dataset_ids FROM qa WHERE tenant_id = ?", (tenant_id,)
            ).fetchall()
            doomed = [
                qa_id
                for qa_id, elements, used in rows
                if chunks.intersection(json.loads(elements))
                or datasets.intersection(json.loads(used))
            ]
            _delete_in(conn, "qa", "qa_id", doomed)
            _delete_in(conn, "element_feedback", "element_id", sorted(chunks), tenant_id)
        return len(doomed)

    def drop_tenant(self, tenant_id: str) -> int:
        """Delete every session, entry and feedback tally of a tenant (it is being
        deleted), their bytes as ``forget`` does.

        Returns:
            The number of entries deleted.

        Raises:
            StoreError: the store could not be written (nothing is deleted).
        """
        with self._erasing() as conn:
            gone = conn.execute("DELETE FROM qa WHERE tenant_id = ?", (tenant_id,)).rowcount
            for table in ("sessions", "element_feedback"):
                conn.execute(f"DELETE FROM {table} WHERE tenant_id = ?", (tenant_id,))
        return int(gone)

    @contextmanager
    def _erasing(self) -> Iterator[Connection]:
        """A write transaction whose deleted rows leave the file: SQLite overwrites
        them (``secure_delete``) and the WAL is emptied after the commit."""
        sqlite = self._db.dialect == "sqlite"
        with self._db.write() as conn:
            if sqlite:
                conn.execute("PRAGMA secure_delete = ON")
            yield conn
        if sqlite:  # the WAL still holds the pages as they were before the delete
            with self._db.read() as conn:
                if conn is not None:
                    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")

    def element_weights(self, tenant_id: str, element_ids: Iterable[str]) -> dict[str, float]:
        """Element id -> mean feedback mapped to [-1, 1] (5 -> 1, 3 -> 0, 1 -> -1),
        for the rated ones among ``element_ids``."""
        ids = list(dict.fromkeys(element_ids))
        out: dict[str, float] = {}
        with self._db.read() as conn:
            if conn is None or not ids:
                return out
            for start in range(0, len(ids), 500):
                part = ids[start : start + 500]
                marks = ", ".join("?" * len(part))
                rows = conn.execute(
                    "SELECT element_id, score_sum, count FROM element_feedback WHERE "
                    f"tenant_id = ? AND count > 0 AND element_id IN ({marks})",
                    (tenant_id, *part),
                ).fetchall()
                for element, total, count in rows:
                    out[element] = max(-1.0, min(1.0, (total / count - 3.0) / 2.0))
        return out


def _delete_in(
    conn: Connection, table: str, column: str, values: Sequence[str], tenant_id: str | None = None
) -> None:
    """Delete the rows of ``table`` whose ``column`` is one of ``values`` (and, when
    given, whose tenant is ``tenant_id``), 500 values per statement."""
    tenant = "" if tenant_id is None else " AND tenant_id = ?"
    for start in range(0, len(values), 500):
        part = list(values[start : start + 500])
        marks = ", ".join("?" * len(part))
        params = (*part,) if tenant_id is None else (*part, tenant_id)
        conn.execute(f"DELETE FROM {table} WHERE {column} IN ({marks}){tenant}", params)


def _identical(conn: Connection, key: tuple[str, str, str], record: QARecord) -> QARecord | None:
    """The session's newest entry with ``record``'s question, context, answer,
    elements and datasets, if any (``key``: tenant, user, session)."""
    row = conn.execute(
        f"SELECT {_COLUMNS} FROM qa WHERE tenant_id = ? AND user_id = ? AND session_id = ? "
        "AND question = ? AND context = ? AND answer = ? AND element_ids = ? "
        "AND dataset_ids = ? ORDER BY time DESC LIMIT 1",
        (
            *key,
            record.question,
            record.context,
            record.answer,
            json.dumps(record.element_ids),
            json.dumps(record.dataset_ids),
        ),
    ).fetchone()
    return _record(row) if row is not None else None


def format_history(turns: Sequence[tuple[str, str]]) -> str:
    """Previous turns as the completion prompt's conversation history."""
    return "\n".join(f"Q: {q}\nA: {a}" for q, a in turns)
