"""Values of traced calls as bounded, redacted JSON.

A trace stores the arguments and the return value of an agent's tool calls, and
those routinely hold credentials. Before anything is stored:

- a mapping key (or an argument name) that names a secret has its value replaced
  by ``"[redacted]"``, at any depth; a key names a secret when, lower-cased with
  ``-`` and spaces read as ``_``, it equals one of the configured names or ends
  with ``_`` + one of them (``openai_api_key``, ``db_password``);
- a string that has the shape of a bearer credential (``Bearer ...``, an
  ``sk-``/``pk-``/``rk-`` style key, a JWT) is redacted wherever it appears, and so
  is any exact secret value the engine knows (its own LLM key);
- containers are cut at ``MAX_ITEMS`` members and ``MAX_DEPTH`` levels, strings
  at the character cap, and the whole JSON text at the cap.
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Iterable, Mapping
from typing import overload

from pydantic import BaseModel

from recall_engine.core.secret_names import DEFAULT_SECRET_NAMES

REDACTED = "[redacted]"
MAX_ITEMS = 100
MAX_DEPTH = 8
_CREDENTIAL = re.compile(
    r"(?i)\bbearer\s+[\w\-.~+/=]{8,}"
    r"|\b(?:sk|pk|rk)-[A-Za-z0-9_\-]{16,}"
    r"|\beyJ[\w\-]{8,}\.[\w\-]{8,}\.[\w\-]{8,}"
)


def _key(name: object) -> str:
    return re.sub(r"[\s\-]+", "_", str(name).strip().lower())


class Redactor:
    """Turns any Python value into capped, redacted JSON text."""

    def __init__(
        self,
        secret_names: Iterable[str] = DEFAULT_SECRET_NAMES,
        *,
        max_chars: int = 4000,
        secret_values: Iterable[str] = (),
    ) -> None:
        self.names = frozenset(_key(n) for n in secret_names if str(n).strip())
        self.max_chars = max_chars
        self._values = tuple(v for v in secret_values if v and len(v) >= 8)

    def is_secret(self, name: object) -> bool:
        key = _key(name)
        return key in self.names or any(key.endswith("_" + n) for n in self.names)

    def _text(self, text: str) -> str:
        for value in self._values:
            text = text.replace(value, REDACTED)
        text = _CREDENTIAL.sub(REDACTED, text)
        if len(text) > self.max_chars:
            text = f"{text[: self.max_chars]}... [{len(text) - self.max_chars} more chars]"
        return text

    @overload
    def plain(self, value: str, depth: int = 0) -> str: ...
    @overload
    def plain(self, value: object, depth: int = 0) -> object: ...
    def plain(self, value: object, depth: int = 0) -> object:
        """``value`` as JSON-able data, redacted and cut."""
        if value is None or isinstance(value, bool | int | float):
            return value
        if isinstance(value, str):
            return self._text(value)
        if depth >= MAX_DEPTH:
            return f"<{type(value).__name__}>"
        if isinstance(value, bytes | bytearray):
            return f"<{len(value)} bytes>"
        if isinstance(value, BaseModel):
            value = value.model_dump(mode="json")
        elif dataclasses.is_dataclass(value) and not isinstance(value, type):
            value = {f.name: getattr(value, f.name) for f in dataclasses.fields(value)}
        if isinstance(value, Mapping):
            out: dict[str, object] = {}
            for i, (k, v) in enumerate(value.items()):
                if i >= MAX_ITEMS:
                    out["..."] = f"{len(value) - MAX_ITEMS} more"
                    break
                secret = self.is_secret(k)
                out[self._text(str(k))] = REDACTED if secret else self.plain(v, depth + 1)
            return out
        if isinstance(value, list | tuple | set | frozenset):
            items = list(value)
            plain = [self.plain(v, depth + 1) for v in items[:MAX_ITEMS]]
            if len(items) > MAX_ITEMS:
                plain.append(f"... {len(items) - MAX_ITEMS} more")
            return plain
        return self._text(repr(value))

    def dumps(self, value: object) -> str:
        """JSON text of ``value``, at most ``max_chars`` long (a longer one is kept as
        a JSON string holding its cut text)."""
        text = json.dumps(self.plain(value), ensure_ascii=False, default=str)
        if len(text) <= self.max_chars:
            return text
        return json.dumps(f"{text[: self.max_chars]}... [{len(text) - self.max_chars} more chars]")
