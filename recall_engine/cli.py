"""The ``recall-engine`` command: remember files, recall from them, list and forget.

recall-engine remember ./notes --dataset notes
recall-engine recall "Where was Einstein born?" --type CHUNKS --dataset notes
recall-engine datasets
recall-engine items --dataset notes
recall-engine facts Ann [--as-of 2023-06-01] [--current] [--dataset chat]
recall-engine forget --data-id <id> | --dataset notes
recall-engine serve --host 127.0.0.1 --port 8000
recall-engine keys create acme | create --admin | list | revoke KEY_ID | rotate KEY_ID
recall-engine mcp [--transport streamable-http --port 8765] [--tools all]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections.abc import Sequence

from recall_engine.cli_interrupt import INTERRUPTED, exit_on_interrupt
from recall_engine.core.errors import InvalidInputError, RecallEngineError
from recall_engine.core.models import (
    Document,
    RecallResult,
    ResponseGraphEntry,
    ResponseQAEntry,
)


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("recall-engine")
    except PackageNotFoundError:
        return "unknown"


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="recall-engine", description=__doc__.split("\n")[0])
    parser.add_argument("--version", action="version", version=f"recall-engine {_version()}")
    parser.add_argument("--data-dir", default=None, help="default: $RECALL_ENGINE_DATA_DIR")
    parser.add_argument("--tenant", default=None, help="default: $RECALL_ENGINE_TENANT")
    sub = parser.add_subparsers(dest="command", required=True)
    rem = sub.add_parser("remember", help="store files, folders or text")
    rem.add_argument("data", nargs="+", help="paths, text, or - for the text on stdin")
    rem.add_argument("--dataset", default="main_dataset", help="default: main_dataset")
    rec = sub.add_parser("recall", help="ask a question")
    rec.add_argument("query")
    rec.add_argument("--type", default=None, help="search type; default: routed")
    rec.add_argument(
        "--dataset", action="append", default=None, help="repeatable; default: every dataset"
    )
    rec.add_argument("--top-k", type=int, default=5, help="default: 5")
    rec.add_argument("--json", action="store_true", help="print results as JSON")
    sub.add_parser("datasets", help="list datasets")
    items = sub.add_parser("items", help="list data items (id, dataset, chunks, name)")
    items.add_argument("--dataset", default=None, help="default: every dataset")
    items.add_argument("--json", action="store_true", help="print items as JSON")
    facts = sub.add_parser("facts", help="what memory holds about someone, with dates")
    facts.add_argument("subject", help="a name, e.g. Ann")
    facts.add_argument("--as-of", default=None, help="only facts valid then (ISO 8601)")
    facts.add_argument("--current", action="store_true", help="only facts that still hold")
    facts.add_argument(
        "--dataset", action="append", default=None, help="repeatable; default: every dataset"
    )
    facts.add_argument("--json", action="store_true", help="print facts as JSON")
    fgt = sub.add_parser("forget", help="delete data items by id, or a whole dataset")
    target = fgt.add_mutually_exclusive_group(required=True)
    target.add_argument("--data-id", action="append", help="a data item id (repeatable)")
    target.add_argument("--dataset", help="a dataset name: deletes the dataset")
    keys = sub.add_parser("keys", help="manage the API key store (create, list, revoke, rotate)")
    ops = keys.add_subparsers(dest="op", required=True)
    make = ops.add_parser("create", help="a new random key; prints it once")
    owner = make.add_mutually_exclusive_group(required=True)
    owner.add_argument("tenant", nargs="?", help="the tenant the key acts for")
    owner.add_argument("--admin", action="store_true", help="a key for every tenant")
    listing = ops.add_parser("list", help="key ids, first characters, tenants, creation times")
    listing.add_argument("--for-tenant", default=None, metavar="TENANT", help="only this tenant")
    listing.add_argument("--json", action="store_true", help="print the keys as JSON")
    ops.add_parser("revoke", help="delete a key (it stops working at once)").add_argument("key_id")
    ops.add_parser("rotate", help="replace a key by a new one; prints it once").add_argument(
        "key_id"
    )
    from recall_engine.server.__main__ import add_arguments

    add_arguments(sub.add_parser("serve", help="run the HTTP API server (FastAPI + uvicorn)"))
    from recall_engine.mcp.__main__ import add_arguments as add_mcp_arguments

    add_mcp_arguments(sub.add_parser("mcp", help="run the MCP server (stdio or streamable HTTP)"))
    return parser


async def _run(args: argparse.Namespace, data: object = None) -> int:
    """Run an engine command; ``data``: what ``remember`` stores (read beforehand)."""
    exit_on_interrupt(
        "interrupted: recall-engine remember stopped; unless it had already committed, "
        "nothing of it is stored."
        if args.command == "remember"
        else f"interrupted: recall-engine {args.command} stopped; the data dir keeps what "
        "was committed before."
    )
    from recall_engine.engine import RecallEngine

    async with RecallEngine(args.data_dir) as engine:
        if args.command == "remember":
            result = await engine.remember(data, dataset_name=args.dataset, tenant_id=args.tenant)
            unread = len(result.unread_files)
            print(
                f"{len(result.new_data_ids)} new, {len(result.skipped_data_ids)} unchanged, "
                f"{result.chunk_count} chunks in {result.dataset_name!r} "
                f"({result.timings['total_s']:.1f}s)"
                + (f"; {unread} file(s) not read (named above)" if unread else "")
            )
        elif args.command == "recall":
            results = await engine.recall(
                args.query,
                args.type,
                datasets=args.dataset,
                top_k=args.top_k,
                tenant_id=args.tenant,
            )
            if args.json:
                print(json.dumps([r.model_dump(mode="json") for r in results], indent=2))
            for r in [] if args.json else results:
                print(_line(r))
        elif args.command == "items":
            rows = await engine.list_items(dataset_name=args.dataset, tenant_id=args.tenant)
            if args.json:
                print(json.dumps(rows, indent=2))
            for row in [] if args.json else rows:
                print(
                    f"{row['data_id']}\t{row['dataset_name']}\t{row['chunk_count']}\t{row['name']}"
                )
        elif args.command == "facts":
            found = await engine.facts(
                args.subject,
                as_of=args.as_of,
                history=not args.current,
                datasets=args.dataset,
                tenant_id=args.tenant,
            )
            if args.json:
                print(json.dumps([f.model_dump(mode="json") for f in found], indent=2))
            for fact in [] if args.json else found:
                print(("  " if fact.current else "x ") + fact.describe())
        elif args.command == "forget":
            removed = await engine.forget(
                data_id=args.data_id, dataset_name=args.dataset, tenant_id=args.tenant
            )
            print(f"forgot {removed} chunks")
        else:
            for name, dataset_id in sorted(
                (await engine.list_datasets(tenant_id=args.tenant)).items()
            ):
                print(f"{name}\t{dataset_id}")
    return 0


def _remembered(given: Sequence[str]) -> object:
    """What ``recall-engine remember`` stores: its arguments, ``-`` read from stdin.

    Read before the engine opens, so that waiting for stdin holds no data dir.

    Raises:
        InvalidInputError: ``-`` given twice, or empty or undecodable text on stdin.
    """
    if given.count("-") > 1:
        raise InvalidInputError("- (the text on stdin) may be given once.")
    data = [_stdin() if d == "-" else d for d in given]
    return data[0] if len(data) == 1 else data


def _stdin() -> Document:
    """The text piped to ``recall-engine remember -``, as a document: never taken
    for a path, whatever it says."""
    from recall_engine.core.validation import decode_text

    text = decode_text(sys.stdin.buffer.read(), what="The text on stdin")
    if not text.strip():
        raise InvalidInputError(
            "The text on stdin is empty; pipe the text to remember, as in "
            "`echo 'Ada wrote the first program.' | recall-engine remember -`."
        )
    return Document(text=text)


def _keys(args: argparse.Namespace) -> int:
    """``recall-engine keys ...`` on the key store: the data dir's, or the shared
    state database's when ``RECALL_ENGINE_STATE_URL`` is set (no graph store is
    opened, so it works while a server runs; every server sees the change at its
    next request)."""
    from recall_engine.config import RecallConfig
    from recall_engine.state.store import open_state, registry_source
    from recall_engine.tenants.registry import ADMIN, TenantRegistry

    config = RecallConfig.load(data_dir=args.data_dir)
    state = open_state(config)
    try:
        registry = TenantRegistry(registry_source(config, state))
    except BaseException:
        state.close()
        raise
    try:
        if args.op == "create":
            if not args.admin and args.tenant == ADMIN:
                raise InvalidInputError(
                    f"tenant {ADMIN!r} is reserved for admin keys; run `recall-engine keys "
                    "create --admin` for a key that acts in every tenant."
                )
            record, key = registry.create_key(ADMIN if args.admin else args.tenant)
        elif args.op == "rotate":
            record, key = registry.rotate_key(args.key_id)
        elif args.op == "revoke":
            record = registry.revoke_key(args.key_id)
            print(f"revoked {record.key_id} ({_owner(record.tenant_id)})")
            return 0
        else:
            records = registry.keys(args.for_tenant)
            rows = [
                {"key_id": r.key_id, "tenant_id": None if r.is_admin else r.tenant_id,
                 "admin": r.is_admin, "prefix": r.prefix, "created_at": r.created_at}
                for r in records
            ]  # fmt: skip
            if args.json:
                print(json.dumps(rows, indent=2))
            for r in [] if args.json else records:
                print(f"{r.key_id}\t{_owner(r.tenant_id)}\t{r.prefix or '-'}\t{r.created_at}")
            return 0
    finally:
        registry.close()
        state.close()
    # The key alone on stdout (KEY=$(recall-engine keys create acme)); the rest on stderr.
    print(
        f"{record.key_id} for {_owner(record.tenant_id)}: the key is shown this once; "
        "store it now.",
        file=sys.stderr,
    )
    print(key)
    return 0


def _owner(tenant_id: str) -> str:
    return "admin (every tenant)" if tenant_id == "*" else f"tenant {tenant_id!r}"


def _line(result: RecallResult) -> str:
    if not isinstance(result, ResponseGraphEntry | ResponseQAEntry):
        return f"{result.source}  {result.text}"
    if isinstance(result, ResponseQAEntry):
        return f"session  Q: {result.question} A: {result.answer}"
    score = f"{result.score:.3f}" if result.score is not None else "-"
    name = result.metadata.get("document_name")
    return f"{score}  [{name}] {result.text}" if name else f"{score}  {result.text}"


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point; returns the exit status (2 for a usage error, 1 for a runtime failure)."""
    args = _parser().parse_args(argv)
    try:
        if args.command == "mcp":
            from recall_engine.mcp.__main__ import serve as serve_mcp

            return serve_mcp(args)
        if args.command == "serve":
            from recall_engine.server.__main__ import serve

            return serve(args)
        if args.command == "keys":
            return _keys(args)
        data = _remembered(args.data) if args.command == "remember" else None
        return asyncio.run(_run(args, data))
    except RecallEngineError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2 if isinstance(exc, ValueError | TypeError) else 1
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return INTERRUPTED


if __name__ == "__main__":
    sys.exit(main())
