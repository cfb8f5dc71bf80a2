"""The engine's ``facts()``: what memory holds about a subject, with time."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from datetime import date, datetime
from typing import TYPE_CHECKING, cast

from recall_engine.core.bounds import MAX_NAMES, MAX_SUBJECT_CHARS, check_count, check_length
from recall_engine.core.errors import DatasetNotFoundError, InvalidInputError
from recall_engine.core.facts import Fact
from recall_engine.core.recall_checks import moment
from recall_engine.core.validation import check_name, check_text
from recall_engine.read.store_reader import StoreReader

if TYPE_CHECKING:
    from recall_engine.identity import DatasetAccess, User
    from recall_engine.storage.tenant import TenantStore


class FactsMixin:
    """``facts()`` of a ``RecallEngine`` (mixed into it)."""

    if TYPE_CHECKING:

        def _tenant(self, tenant_id: str | None) -> str: ...

        def store(self, tenant_id: str | None = None, *, create: bool = False) -> TenantStore: ...

        async def datasets(
            self, *, user: User | str | None = None, tenant_id: str | None = None
        ) -> list[DatasetAccess]: ...

    async def facts(
        self,
        subject: str,
        *,
        as_of: datetime | date | str | None = None,
        history: bool = True,
        dataset_name: str | None = None,
        datasets: Sequence[str] | str | None = None,
        user: User | str | None = None,
        tenant_id: str | None = None,
    ) -> list[Fact]:
        """The facts memory holds about ``subject`` (an entity's name, alias or
        surname), sorted by predicate then statement time, each with ``valid_from``,
        ``valid_until``, what superseded it and whether it is ``current``
        (``core.facts.Fact``).

        Args:
            subject: Whose facts: "Ann" (in a conversation, a speaker's "I"); at most
                ``MAX_SUBJECT_CHARS`` characters.
            as_of: Only the facts valid at that time (a datetime, a date or an ISO 8601
                date or time, as ``recall()``'s).
            history: False: only current facts (ignored with ``as_of``).
            dataset_name / datasets: The dataset(s) to read (default: every
                dataset ``user`` can read; at most ``MAX_NAMES`` names).

        Raises:
            InvalidInputError: an empty or too long subject, a bad time, both dataset
                options, or too many dataset names.
            DatasetNotFoundError: a named dataset ``user`` cannot read.
            RecallPreconditionError: nothing has been remembered in the tenant.
        """
        if not isinstance(subject, str) or not subject.strip():
            raise InvalidInputError("subject must be a non-empty name, e.g. facts('Ann').")
        check_text(subject, what="subject")
        check_length(
            subject,
            what="subject",
            limit=MAX_SUBJECT_CHARS,
            hint="Pass an entity's name or alias, e.g. facts('Ann').",
        )
        if not isinstance(history, bool):
            raise InvalidInputError(f"history must be True or False, got {history!r}.")
        when = None if as_of is None else cast(datetime, moment("as_of")(as_of))
        names = _names(dataset_name, datasets)
        tenant = self._tenant(tenant_id)
        store = await asyncio.to_thread(self.store, tenant)
        readable = {d.name: d.id for d in await self.datasets(user=user, tenant_id=tenant)}
        if names is None:
            scope = tuple(readable.values())
        else:
            unknown = [n for n in names if n not in readable]
            if unknown:
                raise DatasetNotFoundError(
                    f"datasets: unknown dataset(s) {unknown} (or not readable by this user); "
                    "list them with engine.datasets()."
                )
            scope = tuple(readable[n] for n in names)
        reader = StoreReader(store, scope)
        return await reader.facts(subject.strip(), as_of=when, history=history)


def _names(dataset_name: str | None, datasets: Sequence[str] | str | None) -> list[str] | None:
    if dataset_name is not None and datasets is not None:
        raise InvalidInputError("pass dataset_name= or datasets=, not both.")
    if dataset_name is not None:
        return [check_name(dataset_name, what="dataset_name")]
    if datasets is None:
        return None
    listed = [datasets] if isinstance(datasets, str) else list(datasets)
    if not listed:
        raise InvalidInputError("datasets must name at least one dataset, or be left out.")
    check_count(listed, what="datasets", limit=MAX_NAMES, hint="Pass fewer names, or None for all.")
    return [check_name(n, what="datasets") for n in listed]
