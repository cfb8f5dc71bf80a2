"""The engine's listings and graph page: datasets, data items, ``visualize_graph``."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import TYPE_CHECKING

from recall_engine.core.errors import InvalidInputError, RecallPreconditionError
from recall_engine.core.validation import check_int, check_name
from recall_engine.graph.visualize import DEFAULT_MAX_NODES, render_graph_html
from recall_engine.memory import ItemInfo

if TYPE_CHECKING:
    from recall_engine.storage.graph_reads import DocumentRecord
    from recall_engine.storage.tenant import TenantStore


class ListingMixin:
    """What a ``RecallEngine`` holds, listed or drawn (mixed into it)."""

    if TYPE_CHECKING:

        def _tenant(self, tenant_id: str | None) -> str: ...

        def store(self, tenant_id: str | None = None, *, create: bool = False) -> TenantStore:
            """The open store of a tenant (``RecallEngine.store``)."""
            ...

        def _scope(
            self, store: TenantStore, names: tuple[str, ...] | None, ids: tuple[str, ...] | None
        ) -> tuple[str, ...]: ...

    async def visualize_graph(
        self,
        path: str | Path,
        dataset_name: str | None = None,
        *,
        tenant_id: str | None = None,
        max_nodes: int = DEFAULT_MAX_NODES,
    ) -> Path:
        """Write the tenant's knowledge graph (or one dataset's) as an HTML page.

        The page is self-contained and works offline. It opens with the graph fitted to
        the window and dates hidden (the legend shows them); past ``max_nodes`` entities
        it draws the best-connected ones and says so.

        Args:
            path: the ``.html`` file to write.
            dataset_name: draw only this dataset; None draws the whole tenant.
            tenant_id: the tenant; None is the configured default tenant.
            max_nodes: the most entities drawn.

        Returns:
            The path of the page written.

        Raises:
            InvalidInputError: ``path`` is empty, not a path, a folder, or cannot be
                written; a bad ``dataset_name``; ``max_nodes`` not a whole number
                of at least 1.
            RecallPreconditionError: nothing has been remembered in the tenant.
            DatasetNotFoundError: ``dataset_name`` does not exist.
        """
        target = _output_path(path, what="path")
        limit = check_int(max_nodes, what="max_nodes")
        names = (
            (check_name(dataset_name, what="dataset_name"),) if dataset_name is not None else None
        )
        store = await asyncio.to_thread(self.store, self._tenant(tenant_id))
        scope = self._scope(store, names, None)
        entities = await asyncio.to_thread(store.graph.entities, scope)
        relations = await asyncio.to_thread(store.graph.relations, scope)
        title = f"recall-engine: {store.tenant_id}" + (f" / {names[0]}" if names else "")
        page = await asyncio.to_thread(
            render_graph_html, entities, relations, title=title, max_nodes=limit
        )
        await asyncio.to_thread(_write_page, target, page)
        return target

    async def list_datasets(self, *, tenant_id: str | None = None) -> dict[str, str]:
        """The datasets of a tenant.

        Args:
            tenant_id: the tenant; None is the configured default tenant.

        Returns:
            Dataset name -> id; empty when nothing was remembered.
        """
        tenant = self._tenant(tenant_id)
        try:
            store = await asyncio.to_thread(self.store, tenant)
        except RecallPreconditionError:
            return {}
        return {name: dataset_id for dataset_id, name in store.datasets().items()}

    async def list_items(
        self, *, dataset_name: str | None = None, tenant_id: str | None = None
    ) -> list[ItemInfo]:
        """The data items of a tenant (or of one dataset), oldest first.

        Args:
            dataset_name: list only this dataset; None lists the whole tenant.
            tenant_id: the tenant; None is the configured default tenant.

        Returns:
            One dict per item: ``data_id``, ``name``, ``dataset_name``, ``kind``,
            ``chunk_count``, ``created_at``.

        Raises:
            InvalidInputError: a bad ``dataset_name`` or ``tenant_id``.
            DatasetNotFoundError: ``dataset_name`` does not exist.
        """
        name = check_name(dataset_name, what="dataset_name") if dataset_name is not None else None
        tenant = self._tenant(tenant_id)
        try:
            store = await asyncio.to_thread(self.store, tenant)
        except RecallPreconditionError:
            if name is not None:
                raise
            return []
        scope = self._scope(store, (name,), None) if name is not None else (None,)
        rows: list[DocumentRecord] = []
        for dataset_id in scope:
            rows += await asyncio.to_thread(store.graph.documents, dataset_id)
        items = [
            ItemInfo(
                data_id=r.id,
                name=r.name,
                dataset_name=r.dataset_name,
                kind=r.kind,
                chunk_count=r.chunk_count,
                created_at=r.created_at,
            )
            for r in rows
        ]
        return sorted(items, key=lambda i: (str(i["created_at"]), i["data_id"]))


def _output_path(path: object, *, what: str) -> Path:
    """A file path to write to, checked before any work is done.

    Raises:
        InvalidInputError: not a str/Path, empty, or an existing folder.
    """
    if not isinstance(path, str | os.PathLike) or not str(path).strip():
        raise InvalidInputError(f"{what} must be the path of an .html file to write, got {path!r}.")
    target = Path(path).expanduser()
    if target.is_dir():
        raise InvalidInputError(
            f"{what} {str(target)!r} is a folder; pass a file path such as "
            f"{str(target / 'graph.html')!r}."
        )
    return target


def _write_page(target: Path, page: str) -> None:
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(page, encoding="utf-8")
    except OSError as exc:
        raise InvalidInputError(
            f"path {str(target)!r} cannot be written: {exc.strerror or exc}; pass a "
            "writable location."
        ) from exc
