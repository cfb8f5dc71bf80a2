"""The engine's router: the default rule table, plus the caller's rules file."""

from __future__ import annotations

from recall_engine.config import RecallConfig
from recall_engine.core.errors import ConfigError
from router import DEFAULT_RULES, Router, default_router, load_rules


def build_router(config: RecallConfig) -> Router:
    """The default rule table, plus the rules of ``config.router_rules`` when set.

    Raises:
        InvalidRuleError: the file holds a rule that cannot be loaded.
        InvalidInputError: the file does not exist.
    """
    if config.router_rules is None:
        return default_router()
    if config.router_rules.is_dir():
        raise ConfigError(
            f"router_rules {config.router_rules} is a folder; pass a .toml or .json rules file."
        )
    if not config.router_rules.is_file():
        raise ConfigError(
            f"router_rules file {config.router_rules} does not exist; check the path "
            "(or $RECALL_ENGINE_ROUTER_RULES)."
        )
    return Router(load_rules(config.router_rules, base=DEFAULT_RULES))
