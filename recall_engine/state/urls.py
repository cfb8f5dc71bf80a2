"""Server URLs of the shared stores: their scheme checked, their password kept out
of every message.

A URL may carry a password (``postgresql://app:secret@db/recall``); anything
that names a URL to a person (an error, a log line, a repr) goes through
``redacted`` first, which keeps the user, host, port and path and drops the
password and the query (which may hold one too, as ``?password=``).
"""

from __future__ import annotations

from urllib.parse import urlsplit

from recall_engine.core.errors import ConfigError

POSTGRES_SCHEMES = ("postgresql", "postgres")
REDIS_SCHEMES = ("redis", "rediss", "unix")


def redacted(url: str) -> str:
    """``url`` without its password and query (``postgresql://app:***@db:5432/recall``)."""
    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
        port = f":{parts.port}" if parts.port else ""
    except ValueError:  # an unparsable port: show no more than the scheme
        return url.split(":", 1)[0] + "://..."
    user = parts.username or ""
    auth = f"{user}:***@" if parts.password is not None else (f"{user}@" if user else "")
    return f"{parts.scheme}://{auth}{host}{port}{parts.path}"


def scrub(message: str, url: str) -> str:
    """``message`` with ``url``'s password removed, wherever a driver quoted it."""
    try:
        password = urlsplit(url).password
    except ValueError:
        password = None
    if password:
        message = message.replace(password, "***")
    return message


def check_url(url: str, *, schemes: tuple[str, ...], what: str) -> str:
    """``url`` stripped, when its scheme is one of ``schemes``.

    Raises:
        ConfigError: another scheme, or a port that is not a number; the
            message shows the URL without its password.
    """
    if not isinstance(url, str) or not url.strip():
        raise ConfigError(f"{what} must be a URL ({schemes[0]}://...), got {type(url).__name__}.")
    url = url.strip()
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises on a port that is not a number
    except ValueError:
        raise ConfigError(
            f"{what} {redacted(url)!r} is not a valid URL (a port must be a number)."
        ) from None
    if parts.scheme not in schemes:
        raise ConfigError(
            f"{what} {redacted(url)!r} must start with "
            + " or ".join(f"{s}://" for s in schemes)
            + "."
        )
    return url
