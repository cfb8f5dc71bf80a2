"""The ``?prefix=NAME`` of a shared server's URL (Redis, FalkorDB): the one
deployment's keys or graph names start with ``recall-engine:NAME:``, so several
deployments (or test runs) can share one server without seeing each other's data."""

from __future__ import annotations

import re
from urllib.parse import SplitResult, parse_qsl, urlencode

from recall_engine.core.errors import ConfigError

KEY_ROOT = "recall-engine:"
"""What every key (Redis) and graph name (FalkorDB) of a deployment starts with."""
_PREFIX_NAME = re.compile(r"^[A-Za-z0-9_.-]{1,64}$")


def take_prefix(parts: SplitResult, *, what: str) -> tuple[SplitResult, str]:
    """``parts`` without its ``prefix=NAME`` query parameter, and the key prefix it
    names (``recall-engine:NAME:``; ``recall-engine:`` without one).

    Raises:
        ConfigError: a name that is not 1 to 64 letters, digits, ``_``, ``.`` and
            ``-``; the message starts with ``what`` (which must not hold a password).
    """
    name, rest = None, []
    for key, value in parse_qsl(parts.query, keep_blank_values=True):
        if key == "prefix":
            name = value
        else:
            rest.append((key, value))
    if name is not None and not _PREFIX_NAME.match(name):
        raise ConfigError(
            f"{what}: prefix {name!r} must be 1 to 64 letters, digits, '_', '.' or '-'."
        )
    prefix = f"{KEY_ROOT}{name}:" if name else KEY_ROOT
    return parts._replace(query=urlencode(rest)), prefix
