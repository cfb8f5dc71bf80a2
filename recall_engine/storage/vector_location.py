"""Where a tenant's LanceDB tables live when they are shared: an ``s3://`` URI.

With ``RecallConfig.vector_uri`` set, the tables of the store ``<name>`` (the
tenant's folder name, ``config.dir_name``) live at ``<vector_uri>/<name>`` and are
opened with the configured storage options (endpoint, region, ``allow_http``,
keys). Several processes may then write and read them; each keeps its in-memory
mirror in step within ``refresh_s`` seconds (``tenant.TenantStore.sync``).

Every request to the object store is bounded (``REQUEST_BOUNDS``, unless the
options set their own), so that an endpoint that stops answering fails a call
instead of holding it for many minutes; ``reach`` asks the endpoint once, for a
replica's check at start.

The options hold keys, so this record never shows them: its repr lists the
option names only, and ``failure_message`` turns a LanceDB error into a sentence
that names the setting to fix without quoting the error (which may echo the
endpoint or a signed request).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from recall_engine.core.errors import StoreError

# Words of object_store / reqwest errors (LanceDB's S3 client) that mean no answer came.
_UNREACHABLE = (
    "tcp connect error",
    "connection refused",
    "kind: connect",
    "error sending request",
    "dns error",
    "timed out",
)
REQUEST_BOUNDS = {"connect_timeout": "2s", "timeout": "10s"}
"""Storage options that bound one request: connecting, then the whole request. The
S3 client and LanceDB both retry, so an operation on an endpoint that stops answering
fails after a few dozen of these; 10 s carries a 16 MB read at 1.6 MB/s (set
``timeout`` in ``vector_storage_options`` for a slower link)."""
SETTING = "vector_uri ($RECALL_ENGINE_VECTOR_URI)"
OPTIONS = "vector_storage_options (or $AWS_ENDPOINT_URL, $AWS_ACCESS_KEY_ID, ...)"


@dataclass(frozen=True)
class SharedVectors:
    """The shared location of every tenant's vector tables."""

    uri: str
    """``s3://bucket`` or ``s3://bucket/prefix``, without a trailing slash."""
    options: dict[str, str] = field(default_factory=dict, repr=False, compare=False)
    refresh_s: float = 1.0
    """The most seconds a read may miss another process's committed write."""

    def __post_init__(self) -> None:
        # The bounds apply unless the options (lowercased by the configuration) set them.
        object.__setattr__(self, "options", {**REQUEST_BOUNDS, **self.options})

    def __repr__(self) -> str:
        names = ", ".join(sorted(self.options))
        return f"SharedVectors(uri={self.uri!r}, options=[{names}], refresh_s={self.refresh_s})"

    def store_uri(self, store_name: str) -> str:
        """The URI of one store's tables."""
        return f"{self.uri}/{store_name}"


def reach(shared: SharedVectors) -> None:
    """List the tables at ``shared.uri`` once: an endpoint that does not answer, a
    bucket that does not exist or keys the server refuses fail here (a replica
    calls it at start, before it serves).

    Raises:
        StoreError: the location cannot be listed; the message names the setting
            to fix, never a key or the client's own error.
    """
    import lancedb

    try:
        lancedb.connect(shared.uri, storage_options=dict(shared.options)).list_tables(limit=1)
    except Exception as exc:
        raise StoreError(failure_message(exc, shared.uri, None, action="list")) from exc


def failure_message(
    exc: BaseException, uri: str, tenant: str | None, *, action: str = "open"
) -> str:
    """What went wrong when LanceDB tried to ``action`` the tables of store ``tenant``
    (None: of every store) at ``uri``, and which setting to fix; never the error's own
    text (the cause stays chained for a debugger)."""
    lowered = str(exc).lower()
    bucket = uri.removeprefix("s3://").split("/", 1)[0]
    whose = "" if tenant is None else f" of tenant {tenant!r}"
    start = f"Could not {action} the vector tables{whose} in bucket {bucket!r}: "
    if "nosuchbucket" in lowered:
        return (
            start + "the bucket does not exist. Create it, or point "
            f"{SETTING} at a bucket that exists."
        )
    if any(
        word in lowered
        for word in ("invalidaccesskeyid", "signaturedoesnotmatch", "accessdenied", "status: 403")
    ):
        return (
            start + "the S3 server refused the credentials. Check the keys in "
            f"{OPTIONS} and the bucket's permissions."
        )
    if any(word in lowered for word in _UNREACHABLE):
        return (
            start + "the S3 endpoint cannot be reached. Check the endpoint in "
            f"{OPTIONS} and that the server runs."
        )
    return (
        start + f"{type(exc).__name__} (the cause is chained to this error). Check "
        f"{SETTING} and {OPTIONS}."
    )
