"""The registry of search types: the built-in table plus retrievers users add.

Every surface that runs a search type looks its class up here: ``recall(query_type=...)``,
the router (a rule may target a registered type), the HTTP server and the MCP tool,
which hand ``query_type`` to ``recall()``. Register a class from your own code::

    from recall_engine import register_retriever

    register_retriever("KEYWORDS", KeywordsRetriever)
    await engine.recall("...", query_type="KEYWORDS")

or from an installed package, through the ``recall_engine.retrievers`` entry-point
group (the entry point's name is the search type's name)::

    [project.entry-points."recall_engine.retrievers"]
    KEYWORDS = "my_package.keywords:KeywordsRetriever"

Installed entry points are loaded once, when the first ``RecallEngine`` is built (or
on ``load_entry_points()``).
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import Iterator, Mapping
from importlib.metadata import entry_points

from recall_engine.core.errors import ConfigError, InvalidInputError
from recall_engine.core.search_types import (
    SearchType,
    SearchTypeName,
    add_name,
    check_new_name,
    remove_name,
)
from retrievers.base import RetrieverClass, RetrieverConfig

logger = logging.getLogger(__name__)

ENTRY_POINT_GROUP = "recall_engine.retrievers"
"""The entry-point group through which installed packages add retrievers."""

_CLASS_FACTS: tuple[tuple[str, type | tuple[type, ...]], ...] = (
    ("kind", str),
    ("answers", bool),
    ("prompt", str),
    ("needs_llm", bool),
    ("embeds_query", bool),
)


class RetrieverRegistry(Mapping[SearchTypeName, RetrieverClass]):
    """Search type name -> retriever class: the built-ins, then registered classes.

    Args:
        builtins: the built-in table (``retrievers.RETRIEVERS``), never changed here.
    """

    def __init__(self, builtins: Mapping[SearchType, RetrieverClass]) -> None:
        self._builtins = builtins
        self._added: dict[str, RetrieverClass] = {}
        self._entry_points_loaded = False

    def __getitem__(self, name: SearchTypeName) -> RetrieverClass:
        if name in self._added:
            return self._added[name]
        if name in SearchType.__members__:
            return self._builtins[SearchType(name)]
        raise KeyError(name)

    def __iter__(self) -> Iterator[SearchTypeName]:
        yield from self._builtins
        yield from self._added

    def __len__(self) -> int:
        return len(self._builtins) + len(self._added)

    def register(
        self, name: str, retriever: RetrieverClass, *, replace: bool = False
    ) -> SearchTypeName:
        """Add ``retriever`` as search type ``name``.

        Args:
            name: the new type's name, of the built-ins' form (``KEYWORDS``).
            retriever: a class implementing ``retrievers.base.Retriever`` whose
                ``search_type`` is ``name``; the pipeline builds one per call,
                without arguments. A class without ``whole_scope`` gets False.
            replace: allow replacing another class already registered as ``name``
                (a class of the same module and name, as after a module reload or a
                script run again, replaces it without).

        Returns:
            ``name``.

        Raises:
            InvalidInputError: ``name`` is not of the built-ins' form, is a built-in,
                or already names another class (without ``replace``).
            TypeError: ``retriever`` is not such a class (the message names what is
                missing).
        """
        try:
            check_new_name(name)
        except ValueError as exc:
            raise InvalidInputError(str(exc)) from exc
        check_retriever_class(name, retriever)
        current = self._added.get(name)
        reloaded = current is not None and _qualname(current) == _qualname(retriever)
        if current is not None and current is not retriever and not (replace or reloaded):
            raise InvalidInputError(
                f"Search type {name} is already registered to {_qualname(current)}; "
                "call unregister_retriever first or pass replace=True."
            )
        if "whole_scope" not in dir(retriever):
            retriever.whole_scope = False  # the Protocol's default, for the pipeline to read
        add_name(name)
        self._added[name] = retriever
        return name

    def unregister(self, name: str) -> None:
        """Remove the registered search type ``name`` (unknown names are ignored).

        Raises:
            InvalidInputError: ``name`` is a built-in.
        """
        if name in SearchType.__members__:
            raise InvalidInputError(f"{name} is a built-in search type and cannot be removed.")
        self._added.pop(name, None)
        remove_name(name)

    def load_entry_points(self) -> tuple[SearchTypeName, ...]:
        """Register the retrievers installed packages declare (once per process).

        Returns:
            The names registered by this call (empty after the first).

        Raises:
            ConfigError: an entry point cannot be loaded or does not name a retriever
                class; the message names the entry point and its package.
        """
        if self._entry_points_loaded:
            return ()
        self._entry_points_loaded = True
        added: list[str] = []
        for point in entry_points(group=ENTRY_POINT_GROUP):
            package = point.dist.name if point.dist is not None else "an installed package"
            where = f"entry point {point.name} = {point.value!r} of {package}"
            try:
                retriever = point.load()
                added.append(self.register(point.name, retriever))
            except (ImportError, AttributeError, ValueError, TypeError) as exc:
                self._entry_points_loaded = False  # fix the package, then try again
                raise ConfigError(
                    f"{where} ({ENTRY_POINT_GROUP}) cannot be registered: {exc} "
                    "Fix or uninstall that package."
                ) from exc
            logger.info("registered search type %s from %s", point.name, where)
        return tuple(added)


def check_retriever_class(name: str, retriever: object) -> None:
    """Check that ``retriever`` is a class the pipeline can run as search type ``name``.

    Raises:
        TypeError: it is not a class, or a class fact of ``retrievers.base.Retriever``
            is missing or of the wrong type; the message says which.
    """
    if not inspect.isclass(retriever):
        raise TypeError(
            f"register_retriever({name!r}, ...) takes a retriever class, got "
            f"{type(retriever).__name__}; pass the class itself (it is built per call)."
        )
    problems: list[str] = []
    if getattr(retriever, "search_type", None) != name:
        problems.append(f"search_type = {name!r}")
    for fact, kind in _CLASS_FACTS:
        if not isinstance(getattr(retriever, fact, None), kind):
            problems.append(f"{fact}: {kind.__name__ if isinstance(kind, type) else kind}")
    if not isinstance(getattr(retriever, "whole_scope", False), bool):
        problems.append("whole_scope: bool (or nothing: False)")
    config = getattr(retriever, "config_model", None)
    if not (inspect.isclass(config) and issubclass(config, RetrieverConfig)):
        problems.append("config_model: a RetrieverConfig subclass")
    if not inspect.iscoroutinefunction(getattr(retriever, "retrieve", None)):
        problems.append("async def retrieve(self, query, ctx) -> RetrieverOutput")
    if problems:
        raise TypeError(
            f"{_qualname(retriever)} is not a retriever for {name}: it needs "
            f"{'; '.join(problems)} (see retrievers.base.Retriever)."
        )


def _qualname(cls: object) -> str:
    return f"{getattr(cls, '__module__', '?')}.{getattr(cls, '__qualname__', cls)}"
