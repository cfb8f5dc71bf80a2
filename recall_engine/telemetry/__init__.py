"""OpenTelemetry for recall-engine, opt-in: spans for remember() and recall() (one per
stage), the HTTP server's requests, and metrics for latency, throughput, cache hits
and errors.

The hooks use ``opentelemetry-api`` only (``pip install recall-engine[otel]``), which
does nothing until the application sets up an SDK; without the package installed
they do nothing at all. Query text and memory content stay out of telemetry unless
``capture_content`` is on (``telemetry.settings`` lists the environment variables).

    from opentelemetry import trace
    from opentelemetry.sdk.trace import TracerProvider
    trace.set_tracer_provider(TracerProvider())   # plus an exporter of your choice
    from recall_engine import telemetry
    telemetry.configure(capture_content=False)    # the default
"""

from __future__ import annotations

from recall_engine.telemetry.settings import TelemetrySettings, configure, current

__all__ = ["TelemetrySettings", "configure", "current"]
