"""Run Cognee's side of ``bench.peers`` in its own virtual environment, offline.

Cognee is never imported here: ``cognee_driver.py`` runs under the Python of a
separate venv (``pip install -r bench/peers/requirements.txt``), with an
environment that points its LLM and its embeddings at our local ``PeerServer``
and keeps everything else on this machine (telemetry off, litellm's bundled
model map, a Hugging Face cache holding only our packaged MiniLM tokenizer,
offline).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from bench._data import Sample
from recall_engine.embedding import packaged_model_dir

DRIVER = Path(__file__).with_name("cognee_driver.py")
TOKENIZER_REPO = "sentence-transformers/all-MiniLM-L6-v2"
_TOKENIZER_FILES = ("tokenizer.json", "tokenizer_config.json", "special_tokens_map.json")


class PeerError(RuntimeError):
    """The peer could not be run; the message says what to do."""


def spec_sample(sample: Sample, dataset: str) -> dict[str, Any]:
    """A conversation as the driver reads it: speakers and dated sessions of turns."""
    sessions: dict[str, dict[str, Any]] = {}
    speakers: dict[str, None] = {}
    for m in sample.conversation.messages:
        # LoCoMo turn ids are "D<session>:<turn>"; other data falls back to the date.
        key = m.id.split(":", 1)[0] if m.id and ":" in m.id else str(m.timestamp)
        session = sessions.setdefault(
            key,
            {
                "index": len(sessions) + 1,
                "date": f"{m.timestamp:%-I:%M %p on %-d %B, %Y}" if m.timestamp else "",
                "turns": [],
            },
        )
        session["turns"].append({"id": m.id, "speaker": m.speaker, "text": m.text})
        speakers[m.speaker or ""] = None
    names = [*list(speakers)[:2], "", ""][:2]
    return {
        "sample_id": sample.sample_id,
        "dataset": dataset,
        "speakers": names,
        "sessions": list(sessions.values()),
    }


def offline_env(base_url: str, root: Path) -> dict[str, str]:
    """Cognee's environment: every endpoint on ``base_url``, every folder under ``root``."""
    hf_home = root / "hf"
    _tokenizer_cache(hf_home)
    env = dict(os.environ)
    env.update(
        {
            "LLM_PROVIDER": "openai",
            # A model litellm knows to take a JSON schema, so Cognee asks for its
            # structured answers natively; the server answers whatever name it is sent.
            "LLM_MODEL": "openai/gpt-4o-mini",
            "LLM_ENDPOINT": base_url,
            "LLM_API_KEY": "local-scripted",
            "EMBEDDING_PROVIDER": "openai_compatible",
            "EMBEDDING_MODEL": TOKENIZER_REPO,
            "EMBEDDING_ENDPOINT": base_url,
            "EMBEDDING_API_KEY": "local-scripted",
            "EMBEDDING_DIMENSIONS": "384",
            "EMBEDDING_MAX_COMPLETION_TOKENS": "256",
            "HUGGINGFACE_TOKENIZER": TOKENIZER_REPO,
            "HF_HOME": str(hf_home),
            "HF_HUB_OFFLINE": "1",
            "TRANSFORMERS_OFFLINE": "1",
            "LITELLM_LOCAL_MODEL_COST_MAP": "True",
            "TELEMETRY_DISABLED": "1",
            "DATA_ROOT_DIRECTORY": str(root / "data"),
            "SYSTEM_ROOT_DIRECTORY": str(root / "system"),
            "CACHE_ROOT_DIRECTORY": str(root / "cache"),
            "COGNEE_LOGS_DIR": str(root / "logs"),
            "COGNEE_LOG_FILE": "false",
            "LOG_LEVEL": "ERROR",
            "HOME": str(root / "home"),
            "NO_PROXY": "127.0.0.1,localhost",
        }
    )
    return env


def _tokenizer_cache(hf_home: Path) -> None:
    """A Hugging Face hub cache whose only repo is our packaged MiniLM's tokenizer, so
    Cognee counts tokens with the embedding model's own tokenizer and never downloads."""
    repo = hf_home / "hub" / ("models--" + TOKENIZER_REPO.replace("/", "--"))
    commit = "0" * 40
    snapshot = repo / "snapshots" / commit
    snapshot.mkdir(parents=True, exist_ok=True)
    (repo / "refs").mkdir(exist_ok=True)
    (repo / "refs" / "main").write_text(commit)
    for name in _TOKENIZER_FILES:
        target = snapshot / name
        if not target.exists():
            target.symlink_to(packaged_model_dir() / name)


def run_cognee(
    python: Path, spec: dict[str, Any], *, base_url: str, root: Path, timeout_s: float
) -> dict[str, Any]:
    """Run the driver under ``python`` and return its figures.

    Raises:
        PeerError: ``python`` is missing or has no Cognee, or the driver failed.
    """
    if not python.exists():
        raise PeerError(
            f"no Python at {python}; create Cognee's venv first: python3 -m venv VENV && "
            "VENV/bin/pip install -r bench/peers/requirements.txt, then pass "
            "--cognee-python VENV/bin/python (or set COGNEE_PYTHON)"
        )
    check = subprocess.run(
        [str(python), "-c", "import importlib.metadata as m; print(m.version('cognee'))"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    if check.returncode != 0:
        raise PeerError(
            f"{python} has no cognee: {python.parent}/pip install -r bench/peers/requirements.txt"
        )
    root.mkdir(parents=True, exist_ok=True)
    spec_path, out_path, log_path = root / "spec.json", root / "out.json", root / "driver.log"
    spec_path.write_text(json.dumps(spec))
    with log_path.open("w") as log:
        proc = subprocess.run(
            [str(python), str(DRIVER), str(spec_path), str(out_path)],
            env=offline_env(base_url, root),
            stdout=log,
            stderr=subprocess.STDOUT,
            timeout=timeout_s,
        )
    progress = [ln for ln in log_path.read_text().splitlines() if ln.startswith("cognee:")]
    for line in progress:
        print("  " + line, file=sys.stderr)
    if proc.returncode != 0 or not out_path.exists():
        tail = "\n".join(log_path.read_text().splitlines()[-25:])
        raise PeerError(f"Cognee's driver failed (exit {proc.returncode}); log tail:\n{tail}")
    out: dict[str, Any] = json.loads(out_path.read_text())
    out["version"] = check.stdout.strip()
    return out
