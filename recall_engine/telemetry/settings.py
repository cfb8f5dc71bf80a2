"""What telemetry does in this process: on or off, whether content is captured, and
which OpenTelemetry providers it reports to.

Telemetry is opt-in by what the process configures, not by a switch here: the hooks
talk to ``opentelemetry-api`` only, which does nothing until an SDK is installed and
set up (``pip install recall-engine[otel]`` plus the SDK's ``set_tracer_provider`` /
``set_meter_provider``, or ``opentelemetry-instrument``). Settings here refine that:

- ``RECALL_ENGINE_TELEMETRY=off`` (or ``configure(enabled=False)``): the hooks do not
  even ask the API for a span.
- ``RECALL_ENGINE_TELEMETRY_CAPTURE_CONTENT=true``, or the GenAI conventions' own
  ``OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true`` (or
  ``configure(capture_content=True)``): spans also carry the query text, the results'
  texts and error messages. Off by default: memory content stays out of telemetry.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from recall_engine.core.errors import ConfigError

if TYPE_CHECKING:
    from opentelemetry.metrics import MeterProvider
    from opentelemetry.trace import TracerProvider

ENABLED_ENV = "RECALL_ENGINE_TELEMETRY"
CONTENT_ENV = "RECALL_ENGINE_TELEMETRY_CAPTURE_CONTENT"
GENAI_CONTENT_ENV = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off"}


def _flag(name: str, default: bool) -> bool:
    raw = os.environ.get(name)
    if raw is None or not raw.strip():
        return default
    value = raw.strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise ConfigError(f"{name}={raw!r} is not a flag; set it to true or false.")


@dataclass(frozen=True)
class TelemetrySettings:
    """The process's telemetry settings.

    Attributes:
        enabled: the hooks open spans and record metrics (no-ops without an SDK).
        capture_content: spans carry query text, result texts and error messages.
        tracer_provider: report spans here instead of the global provider.
        meter_provider: report metrics here instead of the global provider.
    """

    enabled: bool = True
    capture_content: bool = False
    tracer_provider: TracerProvider | None = None
    meter_provider: MeterProvider | None = None

    @classmethod
    def from_env(cls) -> TelemetrySettings:
        """The settings the environment asks for.

        Raises:
            ConfigError: a variable that is set but is not a true/false flag.
        """
        content = _flag(CONTENT_ENV, False) or _flag(GENAI_CONTENT_ENV, False)
        return cls(enabled=_flag(ENABLED_ENV, True), capture_content=content)


_current: TelemetrySettings | None = None
_generation = 0
"""Bumped on every change, so cached tracers and instruments are made again."""


def current() -> TelemetrySettings:
    """The settings in force (read from the environment on first use)."""
    global _current
    if _current is None:
        _current = TelemetrySettings.from_env()
    return _current


def generation() -> int:
    """A number that changes whenever the settings do."""
    return _generation


_UNSET: object = object()


_PROVIDERS = {
    "tracer_provider": ("TracerProvider", "get_tracer"),
    "meter_provider": ("MeterProvider", "get_meter"),
}
"""A provider argument's OpenTelemetry class and the method telemetry calls on it."""


def _provider(name: str, value: object) -> object:
    """``value`` once it is seen to be a provider instance, or None.

    Checked here, as every later recall() would fail on it otherwise.

    Raises:
        ConfigError: anything else (a provider class instead of an instance, say).
    """
    kind, method = _PROVIDERS[name]
    if value is None or (not isinstance(value, type) and callable(getattr(value, method, None))):
        return value
    raise ConfigError(
        f"{name} must be a {kind} instance (opentelemetry.sdk's {kind}(), say) or None "
        f"for the global one, got {value!r}."
    )


def configure(
    *,
    enabled: bool | None = None,
    capture_content: bool | None = None,
    tracer_provider: object = _UNSET,
    meter_provider: object = _UNSET,
) -> TelemetrySettings:
    """Change the process's telemetry settings; arguments left out keep their value.

    Args:
        enabled: open spans and record metrics at all.
        capture_content: put query text, result texts and error messages on spans.
        tracer_provider: an OpenTelemetry ``TracerProvider`` to report to (None: the
            global one).
        meter_provider: an OpenTelemetry ``MeterProvider`` to report to (None: the
            global one).

    Returns:
        The settings now in force.

    Raises:
        ConfigError: ``enabled`` or ``capture_content`` is not a bool, or a provider
            is not a provider instance; nothing is changed.
    """
    global _current, _generation
    changes: dict[str, Any] = {}
    for name, value in (("enabled", enabled), ("capture_content", capture_content)):
        if value is None:
            continue
        if not isinstance(value, bool):
            raise ConfigError(f"{name} must be True or False, got {value!r}.")
        changes[name] = value
    if tracer_provider is not _UNSET:
        changes["tracer_provider"] = _provider("tracer_provider", tracer_provider)
    if meter_provider is not _UNSET:
        changes["meter_provider"] = _provider("meter_provider", meter_provider)
    _current = replace(current(), **changes)
    _generation += 1
    return _current
