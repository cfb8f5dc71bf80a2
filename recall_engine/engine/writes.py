"""The engine's writes: ``remember`` (ingest into a dataset) and ``forget``.

Each runs in one worker thread that a cancel of the awaiting task, or ``close()``,
stops before its commit (``engine.write_threads``).
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING

from recall_engine.core.errors import (
    DatasetNotFoundError,
    InvalidInputError,
    RecallPreconditionError,
)
from recall_engine.core.models import RememberResult
from recall_engine.core.validation import check_ids, check_name
from recall_engine.identity import User
from recall_engine.ingest.node_sets import apply_node_sets, check_node_sets
from recall_engine.ingest.sources import collect_sources
from recall_engine.ingest.stop import check_stop
from recall_engine.ingest.writer import writing

if TYPE_CHECKING:
    from recall_engine.config import RecallConfig
    from recall_engine.embedding import Embedder
    from recall_engine.engine.write_threads import WriteThreads
    from recall_engine.identity.service import AccessControl
    from recall_engine.ingest.writer import TenantWriters
    from recall_engine.sessions import SessionStore
    from recall_engine.storage.tenant import TenantStore


class WritesMixin:
    """What a ``RecallEngine`` stores and deletes (mixed into it)."""

    if TYPE_CHECKING:
        config: RecallConfig
        embedder: Embedder
        _access: AccessControl
        _writers: TenantWriters | None
        _write_threads: WriteThreads
        sessions: SessionStore

        def _tenant(self, tenant_id: str | None) -> str: ...

        def store(self, tenant_id: str | None = None, *, create: bool = False) -> TenantStore:
            """The open store of a tenant (``RecallEngine.store``)."""
            ...

    async def remember(
        self,
        data: object,
        *,
        dataset_name: str = "main_dataset",
        metadata: dict[str, object] | None = None,
        tenant_id: str | None = None,
        show_progress: bool | None = None,
        user: User | str | None = None,
        dataset_id: str | None = None,
        node_set: Sequence[str] | None = None,
    ) -> RememberResult:
        """Store documents, files, folders or conversations in a dataset.

        Ingesting the same content into the same dataset again adds nothing; a
        document with a known ``source_id`` (or file path) and new content
        replaces the old version.

        Args:
            data: a string, a path to a ``.txt``/``.md``/``.json``/``.jsonl`` file or a
                folder of them, a ``Document``, a ``Conversation``, or a list of these.
            dataset_name: one of ``user``'s own datasets, created on first use and
                owned by that user.
            metadata: the caller's metadata, kept on every chunk (``metadata_filters``
                of recall() match it).
            tenant_id: the tenant; None is the configured default tenant.
            show_progress: a progress bar; None shows one on a terminal for long ingests.
            user: the user (or its id) who writes; None is the default user.
            dataset_id: write into any dataset the user may write to, shared ones
                included; wins over ``dataset_name``.
            node_set: named node sets for the items (``CODING_RULES`` reads
                ``coding_agent_rules``); content already stored keeps its node sets.

        Returns:
            The dataset id, the data ids (new, skipped, replaced), the chunk count and
            the stage timings.

        Raises:
            InvalidInputError: bad data, dataset name or metadata (nothing is stored).
            InputTooLargeError: an item over ``config.max_item_chars`` (nothing is stored).
            UserNotFoundError: an unknown ``user``.
            DatasetNotFoundError: an unknown ``dataset_id``.
            PermissionDeniedError: no write permission on ``dataset_id`` (nothing is stored).
            StoreError: a store failed (nothing of this call is stored).
            EmbeddingError: the embedding model failed (nothing of this call is stored).
            asyncio.CancelledError: the awaiting task was cancelled. The call raises it
                once its worker thread has stopped: before the commit (at the next
                embedding window at most; nothing of this call is stored, and remembering
                the same data again stores it once), or, when the commit had begun, after
                it (the data is stored, and remembering it again adds nothing).
        """
        name = check_name(dataset_name, what="dataset_name")
        tenant = self._tenant(tenant_id)
        if show_progress is not None and not isinstance(show_progress, bool):
            raise InvalidInputError(
                f"show_progress must be True, False or None, got {show_progress!r}."
            )
        node_sets = check_node_sets(node_set)
        if dataset_id is not None:
            dataset_id = check_ids(dataset_id, what="dataset_id")[0]

        # Files are read, and everything CPU-bound runs, in one worker thread: the
        # event loop keeps serving other tasks during an ingest.
        def work(stop: threading.Event) -> RememberResult:
            from recall_engine.ingest.ingestor import ingest

            sources = collect_sources(
                data, metadata, skip=(self.config.data_dir,), max_chars=self.config.max_item_chars
            )
            apply_node_sets(sources.items, node_sets)
            if user is not None:  # an unknown user must not create an empty store
                self._access.registry.resolve_user(tenant, user)
            if dataset_id is not None:
                store = self._store_with_dataset(tenant, dataset_id)
            else:
                store = self.store(tenant, create=True)
            check_stop(stop)
            target = self._access.write_target(store, user, name, dataset_id)
            result = ingest(
                store,
                self.embedder,
                self.config,
                sources.items,
                dataset_id=target.dataset_id,
                dataset_name=target.dataset_name,
                show_progress=show_progress,
                writers=self._writers,
                stop=stop,
            )
            result.unread_files = {str(u.path): u.reason for u in sources.unread}
            return result

        return await self._write_threads.run("remember()", work)

    def _store_with_dataset(self, tenant: str, dataset_id: str) -> TenantStore:
        try:
            return self.store(tenant)
        except RecallPreconditionError:
            raise DatasetNotFoundError(
                f"Unknown dataset id {dataset_id!r}: nothing has been remembered in tenant "
                f"{tenant!r} yet; pass dataset_name= to create a dataset."
            ) from None

    async def forget(
        self,
        *,
        data_id: str | Sequence[str] | None = None,
        dataset_name: str | None = None,
        tenant_id: str | None = None,
        user: User | str | None = None,
    ) -> int:
        """Delete data items (by id) or a whole dataset, and the graph elements only they support.

        When it returns, no reader returns what was forgotten (recall of every search
        type, facts, listings, the tenant API, the graph page), and the session
        entries built from it (cached answers and their contexts) are deleted. On
        disk, vector tables in the data dir are compacted, so the deleted rows leave
        their files, the full-text index and every older table version
        (``storage.lance_purge``: it costs a rewrite of the table fragments that held
        them), those of memories that expired since the last forget too; deleted
        session rows are overwritten in SQLite.

        What stays on disk: the Kuzu graph file (``graph.kuzu``) keeps the deleted
        values (names, fact context sentences, summaries) in pages it no longer uses
        until it writes over them, since Kuzu has no vacuum (``drop_tenant`` deletes
        the file); vector tables shared at ``vector_uri`` keep the deleted rows in
        their files until an operator compacts them (other replicas may be reading
        older versions); a Postgres ``state_url`` keeps deleted session rows until
        its vacuum; traces recorded with ``trace()`` stay until they expire.

        Args:
            data_id: one data id or several, in datasets ``user`` may write to.
            dataset_name: one of ``user``'s own datasets, deleted whole.
            tenant_id: the tenant; None is the configured default tenant.
            user: the user (or its id) who deletes; None is the default user.

        Returns:
            The number of chunks removed.

        Raises:
            InvalidInputError: neither or both of ``data_id`` and ``dataset_name``, an
                empty list, an id that is not a string, or an unknown id (nothing is
                deleted then).
            DatasetNotFoundError: the dataset is not one of the user's own.
            PermissionDeniedError: a data item in a dataset the user may not write to
                (nothing is deleted).
            asyncio.CancelledError: the awaiting task was cancelled; raised once the
                worker thread has stopped: before anything was deleted, or after the
                deletion when it had begun.
        """
        if (data_id is None) == (dataset_name is None):
            raise InvalidInputError("forget() needs exactly one of data_id or dataset_name.")
        ids = check_ids(data_id, what="data_id") if data_id is not None else None
        name = check_name(dataset_name, what="dataset_name") if dataset_name is not None else None
        tenant = self._tenant(tenant_id)
        return await self._write_threads.run(
            "forget()", lambda stop: self._forget(self.store(tenant), ids, name, user, stop)
        )

    def _forget(
        self,
        store: TenantStore,
        ids: tuple[str, ...] | None,
        name: str | None,
        user: User | str | None = None,
        stop: threading.Event | None = None,
    ) -> int:
        with store.write_lock, writing(self._writers, store) as ticket:
            dataset_id = self._access.forgettable(store, user, ids, name)
            check_stop(stop)  # the last point a cancel stops it at: the deletion completes
            if name is not None:
                assert dataset_id is not None
                members = [d.id for d in store.graph.documents(dataset_id)]
                self._forget_sessions(store, members, dataset_id)
                removed = store.forget(members)
                ticket.forgotten(members)
                store.delete_dataset(dataset_id)
                self._access.dataset_dropped(store.tenant_id, dataset_id)
                store.purge_deleted()
                return removed
            assert ids is not None
            known = store.graph.document_ids(ids)
            unknown = [i for i in ids if i not in known]
            if unknown:
                raise InvalidInputError(
                    f"data_id: unknown data id(s) {unknown} in tenant {store.tenant_id!r}; "
                    "nothing was deleted. List the ids with `recall-engine items`."
                )
            self._forget_sessions(store, ids)
            removed = store.forget(list(ids))
            ticket.forgotten(list(ids))
            store.purge_deleted()
            return removed

    def _forget_sessions(
        self, store: TenantStore, data_ids: Sequence[str], dataset_id: str | None = None
    ) -> None:
        """Delete the session entries (cached answers and their contexts) built from
        the chunks of ``data_ids`` or from ``dataset_id``; first, so that a failure
        leaves the memory as it was and the call can be repeated."""
        chunk_ids = [c.id for d in data_ids for c in store.index.of_data(d)]
        self.sessions.forget(
            store.tenant_id,
            chunk_ids=chunk_ids,
            dataset_ids=() if dataset_id is None else (dataset_id,),
        )
