"""The one place litellm is imported: lazily, offline, quietly.

litellm fetches a remote model-price map when imported (and retries for
seconds when offline) and other catalogs on demand; the environment switches
below make it use its bundled copies. They are ``setdefault``s, so an operator
who really wants the remote map can still ask for it.
"""

from __future__ import annotations

import os
import threading
from types import ModuleType

_OFFLINE_ENV: dict[str, str] = {
    "LITELLM_LOCAL_MODEL_COST_MAP": "True",
    "LITELLM_OFFLINE_MODE": "true",
    "LITELLM_LOCAL_ANTHROPIC_BETA_HEADERS": "true",
    "LITELLM_LOCAL_BLOG_POSTS": "true",
    "LITELLM_LOG": "ERROR",
}

_lock = threading.Lock()
_module: ModuleType | None = None


def get_litellm() -> ModuleType:
    """Import and configure litellm on first use; later calls are free."""
    global _module
    if _module is not None:
        return _module
    with _lock:
        if _module is None:
            for name, value in _OFFLINE_ENV.items():
                os.environ.setdefault(name, value)
            import litellm

            # No phoning home and no noisy hints on our users' terminals.
            litellm.telemetry = False
            litellm.suppress_debug_info = True
            litellm.set_verbose = False
            _module = litellm
    return _module
