"""MkDocs hook: the pages that are generated from the code, so they cannot drift.

- ``<!-- generated:settings -->`` in a page becomes the table of every ``RecallConfig``
  field, its environment variable, type, default and description.
- ``<!-- generated:retriever-options -->`` becomes, for every registered search type,
  the table of its ``retriever_specific_config`` options.
- ``<!-- generated:cli -->`` becomes the help of ``recall-engine`` and of each of
  its commands, as argparse prints it.
- ``<!-- generated:http-endpoints -->`` becomes the table of every path of the HTTP
  server's OpenAPI document (built from the app itself, offline), with its request
  body fields and its answers; the document is also written to ``openapi.json`` in
  the built site.

Both run in the build process, with no network and no server started.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
from functools import cache
from typing import Any

from mkdocs.structure.files import File, Files

SETTINGS_MARK = "<!-- generated:settings -->"
ENDPOINTS_MARK = "<!-- generated:http-endpoints -->"
RETRIEVER_OPTIONS_MARK = "<!-- generated:retriever-options -->"
CLI_MARK = "<!-- generated:cli -->"

# Fields whose declaration carries no description yet.
_NOTES = {
    "data_dir": "Where the embedded stores, the key store and the sessions live.",
    "default_tenant": "The tenant a call acts in when it names none.",
    "llm_model": "Any litellm model string (`openai/gpt-4o-mini`, `ollama/llama3`); "
    "unset: offline.",
    "llm_api_key": "The LLM provider's key (never shown in a repr, a log or an error).",
    "llm_api_base": "The LLM server's base URL (Ollama, an OpenAI-compatible server).",
    "llm_timeout_s": "Seconds one LLM call may take.",
    "llm_max_retries": "Retries with backoff on 429, 5xx and timeouts.",
    "allow_cypher_query": "False turns the CYPHER and NATURAL_LANGUAGE search types off.",
    "embedding_batch_size": "Texts embedded per batch at ingest.",
    "state_url": "`postgresql://user:pass@host/db[?schema=NAME]`: users, grants, tenants, "
    "key digests, sessions, feedback, ingest ledger, writer leases on Postgres.",
    "redis_url": "`redis://[:pass@]host:6379/0[?prefix=NAME]`: rate-limit buckets and the "
    "query-embedding cache shared by replicas.",
    "graph_url": "`falkordb://[:pass@]host:port[?prefix=NAME]`: each tenant's graph on a "
    "FalkorDB server.",
    "vector_uri": "`s3://bucket/prefix`: each tenant's LanceDB tables on S3.",
    "vector_storage_options": "Object-store options for `vector_uri` (keys, endpoint, "
    "region); the `AWS_*` variables fill them too.",
    "vector_refresh_s": "How stale another replica's chunk writes may be, in seconds "
    "(0: check on every read).",
}


def _type_name(annotation: Any) -> str:
    text = annotation.__name__ if isinstance(annotation, type) else str(annotation)
    text = text.replace("typing.", "").replace("pathlib.", "").replace("pydantic.types.", "")
    return text.replace("NoneType", "None")


def _cell(text: str) -> str:
    return " ".join(str(text).split()).replace("|", "\\|")


def settings_table() -> str:
    """The Markdown table of every ``RecallConfig`` field."""
    from recall_engine.config import ENV_VARS, RecallConfig

    variable = {field: env for env, field in ENV_VARS.items()}
    rows = [
        "| setting | environment variable | type | default | what it does |",
        "|---|---|---|---|---|",
    ]
    for name, info in RecallConfig.model_fields.items():
        default = info.get_default(call_default_factory=True)
        shown = "unset" if default is None else f"`{default!s}`"
        env = f"`{variable[name]}`" if name in variable else "(Python only)"
        description = info.description or _NOTES.get(name, "")
        rows.append(
            f"| `{name}` | {env} | `{_cell(_type_name(info.annotation))}` | "
            f"{_cell(shown)} | {_cell(description)} |"
        )
    return "\n".join(rows)


@cache
def openapi_document() -> dict[str, Any]:
    """The HTTP server's OpenAPI document, from an app over an engine on a scratch dir."""
    from recall_engine import RecallConfig, RecallEngine
    from recall_engine.server.app import create_app

    with tempfile.TemporaryDirectory() as scratch:
        # RecallConfig(...) ignores the environment: no server a shell exported is touched.
        engine = RecallEngine(config=RecallConfig(data_dir=scratch))
        try:
            return create_app(engine).openapi()
        finally:
            engine.close()


def _schema(spec: dict[str, Any], node: dict[str, Any]) -> dict[str, Any]:
    ref = node.get("$ref")
    if ref:
        return spec["components"]["schemas"][ref.rsplit("/", 1)[-1]]
    return node


def _body_fields(spec: dict[str, Any], operation: dict[str, Any]) -> str:
    content = operation.get("requestBody", {}).get("content", {})
    for media in ("application/json", "multipart/form-data"):
        if media in content:
            schema = _schema(spec, content[media].get("schema", {}))
            required = set(schema.get("required", ()))
            names = [f"`{n}`*" if n in required else f"`{n}`" for n in schema.get("properties", {})]
            label = "" if media == "application/json" else "multipart: "
            return label + (", ".join(names) or schema.get("title", ""))
    params = [f"`{p['name']}` ({p['in']})" for p in operation.get("parameters", ())]
    return ", ".join(params)


def endpoints_table() -> str:
    """The Markdown table of every path and method of the OpenAPI document."""
    spec = openapi_document()
    rows = [
        "| method | path | what it does | body fields (* required) or parameters | answers |",
        "|---|---|---|---|---|",
    ]
    for path, methods in spec["paths"].items():
        for method, operation in methods.items():
            summary = operation.get("description") or operation.get("summary", "")
            summary = summary.strip().split("\n\n")[0]
            codes = ", ".join(sorted(operation.get("responses", {})))
            rows.append(
                f"| {method.upper()} | `{path}` | {_cell(summary)} | "
                f"{_cell(_body_fields(spec, operation))} | {codes} |"
            )
    return "\n".join(rows)


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    """Fill the generated sections of a page."""
    if SETTINGS_MARK in markdown:
        markdown = markdown.replace(SETTINGS_MARK, settings_table())
    if ENDPOINTS_MARK in markdown:
        markdown = markdown.replace(ENDPOINTS_MARK, endpoints_table())
    if RETRIEVER_OPTIONS_MARK in markdown:
        markdown = markdown.replace(RETRIEVER_OPTIONS_MARK, retriever_options())
    if CLI_MARK in markdown:
        markdown = markdown.replace(CLI_MARK, cli_help())
    return markdown


def on_files(files: Files, config: Any) -> Files:
    """Publish the OpenAPI document beside the pages, as ``openapi.json``."""
    content = json.dumps(openapi_document(), indent=2)
    files.append(File.generated(config, "openapi.json", content=content))
    return files


def retriever_options() -> str:
    """One table per search type: the ``retriever_specific_config`` options it takes."""
    from retrievers import RETRIEVERS

    sections = []
    for search_type, retriever in RETRIEVERS.items():
        fields = retriever.config_model.model_fields
        lines = [f"### `{search_type.value}`", ""]
        if not fields:
            lines.append("No options.")
        else:
            lines += ["| option | type | default | what it does |", "|---|---|---|---|"]
            for name, info in fields.items():
                default = info.get_default(call_default_factory=True)
                shown = "unset" if default is None else f"`{default!s}`"
                lines.append(
                    f"| `{name}` | `{_cell(_type_name(info.annotation))}` | {_cell(shown)} | "
                    f"{_cell(info.description or '')} |"
                )
        sections.append("\n".join(lines))
    return "\n\n".join(sections)


def _subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def cli_help() -> str:
    """``recall-engine --help`` and each command's help, one code block each."""
    from recall_engine.cli import _parser

    os.environ["COLUMNS"] = "88"  # argparse wraps to the terminal; pin it for the page
    parser = _parser()
    blocks = [("recall-engine", parser)]
    for name, sub in _subcommands(parser).items():
        blocks.append((f"recall-engine {name}", sub))
        blocks += [(f"recall-engine {name} {n}", s) for n, s in _subcommands(sub).items()]
    return "\n\n".join(
        f"## `{title}`\n\n```text\n{p.format_help().rstrip()}\n```" for title, p in blocks
    )
