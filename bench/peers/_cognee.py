"""Run Cognee's side of ``bench.peers`` in its own virtual environment, offline.

Cognee is never imported here: ``cognee_driver.py`` runs under the Python of a
separate venv (``pip install -r bench/peers/requirements.txt``), with an
environment that points its LLM and its embeddings at our local ``PeerServer``
and keeps everything else on this machine (telemetry off, litellm's bundled
model map, a Hugging Face cache holding only our packaged MiniLM tokenizer,
offline).
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import subprocess
from collections import Counter
from pathlib import Path
from typing import Any

from bench._data import Sample
from recall_engine.embedding import packaged_model_dir

DRIVER = Path(__file__).with_name("cognee_driver.py")
OFFLINE = Path(__file__).with_name("offline")
"""Holds the ``sitecustomize`` that refuses non-local connections in Cognee's process."""
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
            "PYTHONPATH": str(OFFLINE),
            "PEERS_NET_LOG": str(root / "refused_hosts.txt"),
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


class CogneePeer:
    """Cognee's driver under ``python``, one command at a time (see ``cognee_driver``).

    Args:
        python: the Python of Cognee's venv.
        base_url: the local server Cognee's LLM and embeddings talk to.
        root: an empty folder for Cognee's databases, logs and caches.
        timeout_s: the most seconds one command may take.

    Raises:
        PeerError: ``python`` is missing or has no Cognee (on entry), or the driver
            died or answered an error (on a call).
    """

    def __init__(self, python: Path, *, base_url: str, root: Path, timeout_s: float) -> None:
        self.python, self.base_url, self.root, self.timeout_s = python, base_url, root, timeout_s
        self.version = ""
        self._proc: subprocess.Popen[str] | None = None
        self._log_path = root / "driver.log"

    def __enter__(self) -> CogneePeer:
        self.version = _installed_version(self.python)
        self.root.mkdir(parents=True, exist_ok=True)
        self._log = self._log_path.open("w")
        self._proc = subprocess.Popen(
            [str(self.python), str(DRIVER)],
            env=offline_env(self.base_url, self.root),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._log,
            text=True,
        )
        return self

    def __exit__(self, *exc: object) -> None:
        if self._proc is not None:
            with contextlib.suppress(OSError, ValueError):
                self._send({"op": "quit"})
            try:
                self._proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait()
        self._log.close()

    def call(self, op: str, **args: Any) -> dict[str, Any]:
        """Run one command and return its reply."""
        assert self._proc is not None and self._proc.stdout is not None
        self._send({"op": op, **args})
        ready, _, _ = select.select([self._proc.stdout], [], [], self.timeout_s)
        line = self._proc.stdout.readline() if ready else ""
        if not line:
            raise PeerError(f"Cognee's driver gave no answer to {op!r}; {self._log_tail()}")
        reply: dict[str, Any] = json.loads(line)
        if "error" in reply and op != "recall":
            raise PeerError(f"Cognee's {op!r} failed: {reply['error']}; {self._log_tail()}")
        return reply

    def refused_hosts(self) -> dict[str, int]:
        """Hosts off this machine that Cognee's process tried to reach (all refused)."""
        refused = self.root / "refused_hosts.txt"
        return dict(Counter(refused.read_text().split())) if refused.exists() else {}

    def _send(self, command: dict[str, Any]) -> None:
        assert self._proc is not None and self._proc.stdin is not None
        self._proc.stdin.write(json.dumps(command) + "\n")
        self._proc.stdin.flush()

    def _log_tail(self) -> str:
        self._log.flush()
        return "log tail:\n" + "\n".join(self._log_path.read_text().splitlines()[-25:])


def _installed_version(python: Path) -> str:
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
    return check.stdout.strip()
