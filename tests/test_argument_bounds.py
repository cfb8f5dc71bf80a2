"""Every argument a caller sends has a bound (``core.bounds``): one over it is an
``InvalidInputError`` naming the argument, its length and the limit, the message
never echoes the argument whole, and nothing changes."""

from __future__ import annotations

import pytest

from recall_engine import RecallEngine
from recall_engine.core.bounds import (
    MAX_FEEDBACK_CHARS,
    MAX_ID_CHARS,
    MAX_METADATA_CHARS,
    MAX_NAMES,
    MAX_OPTION_KEYS,
    MAX_SUBJECT_CHARS,
    MAX_SYSTEM_PROMPT_CHARS,
)
from recall_engine.core.errors import InvalidInputError
from recall_engine.core.validation import MAX_NAME_CHARS
from recall_engine.testing import DeterministicEmbedder
from tests.test_bad_inputs import _physics, _snapshot


@pytest.fixture
async def filled(tmp_path, prebuilt):
    eng = RecallEngine(prebuilt(_physics, tmp_path / "data"), embedder=DeterministicEmbedder())
    assert list(await eng.list_datasets()) == ["physics"]
    yield eng
    eng.close()


def _over(limit: int) -> str:
    return "a" * (limit + 1)


CASES = [
    # (call, the argument the message names, the limit it states)
    ("facts subject", lambda e: e.facts(_over(MAX_SUBJECT_CHARS)), "subject", MAX_SUBJECT_CHARS),
    (
        "facts datasets",
        lambda e: e.facts("Einstein", datasets=["physics"] * (MAX_NAMES + 1)),
        "datasets",
        MAX_NAMES,
    ),
    (
        "facts user",
        lambda e: e.facts("Einstein", user=_over(MAX_ID_CHARS)),
        "user",
        MAX_ID_CHARS,
    ),
    (
        "feedback session_id",
        lambda e: e.add_feedback(_over(MAX_ID_CHARS), "qa", score=3),
        "session_id",
        MAX_ID_CHARS,
    ),
    (
        "feedback qa_id",
        lambda e: e.add_feedback("s1", _over(MAX_ID_CHARS), score=3),
        "qa_id",
        MAX_ID_CHARS,
    ),
    (
        "feedback text",
        lambda e: e.add_feedback("s1", "qa", score=3, text=_over(MAX_FEEDBACK_CHARS)),
        "text",
        MAX_FEEDBACK_CHARS,
    ),
    (
        "recall system_prompt",
        lambda e: e.recall("Ulm?", system_prompt=_over(MAX_SYSTEM_PROMPT_CHARS)),
        "system_prompt",
        MAX_SYSTEM_PROMPT_CHARS,
    ),
    (
        "recall node_name list",
        lambda e: e.recall("Ulm?", node_name=[f"n{i}" for i in range(MAX_NAMES + 1)]),
        "node_name",
        MAX_NAMES,
    ),
    (
        "recall node_name entry",
        lambda e: e.recall("Ulm?", node_name=[_over(MAX_SUBJECT_CHARS)]),
        "node_name[0]",
        MAX_SUBJECT_CHARS,
    ),
    (
        "recall datasets",
        lambda e: e.recall("Ulm?", datasets=["physics"] * (MAX_NAMES + 1)),
        "datasets",
        MAX_NAMES,
    ),
    (
        "recall dataset_ids list",
        lambda e: e.recall("Ulm?", dataset_ids=["x"] * (MAX_NAMES + 1)),
        "dataset_ids",
        MAX_NAMES,
    ),
    (
        "recall dataset_ids entry",
        lambda e: e.recall("Ulm?", dataset_ids=[_over(MAX_ID_CHARS)]),
        "dataset_ids[0]",
        MAX_ID_CHARS,
    ),
    ("recall user", lambda e: e.recall("Ulm?", user=_over(MAX_ID_CHARS)), "user", MAX_ID_CHARS),
    (
        "recall retriever_specific_config",
        lambda e: e.recall(
            "Ulm?",
            retriever_specific_config={f"k{i}": 1 for i in range(MAX_OPTION_KEYS + 1)},
        ),
        "retriever_specific_config",
        MAX_OPTION_KEYS,
    ),
    ("create_user", lambda e: e.create_user(_over(MAX_NAME_CHARS)), "name", MAX_NAME_CHARS),
    ("datasets user", lambda e: e.datasets(user=_over(MAX_ID_CHARS)), "user", MAX_ID_CHARS),
    (
        "grant dataset_id",
        lambda e: e.grant(_over(MAX_ID_CHARS), to="someone"),
        "dataset_id",
        MAX_ID_CHARS,
    ),
    (
        "remember metadata",
        lambda e: e.remember("x", metadata={"note": _over(MAX_METADATA_CHARS)}),
        "metadata",
        MAX_METADATA_CHARS,
    ),
]


@pytest.mark.parametrize(
    ("call", "what", "limit"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
async def test_an_argument_over_its_bound_is_refused_and_changes_nothing(filled, call, what, limit):
    root = filled.config.data_dir
    before = _snapshot(root)
    with pytest.raises(InvalidInputError) as caught:
        await call(filled)
    message = str(caught.value)
    assert message.startswith(f"{what} holds "), message
    assert f"at most {limit:,}" in message, message
    assert len(message) < 400  # the argument is never echoed whole
    assert _snapshot(root) == before


async def test_arguments_at_their_bound_are_taken(filled):
    subject = "E" * MAX_SUBJECT_CHARS
    assert await filled.facts(subject) == []
    results = await filled.recall(
        "Where was Einstein born?",
        only_context=True,
        system_prompt="p" * MAX_SYSTEM_PROMPT_CHARS,
        datasets=["physics"] * MAX_NAMES,
        node_name=["n" * MAX_SUBJECT_CHARS],
    )
    assert isinstance(results, list)


async def test_a_session_id_recall_takes_is_the_one_feedback_takes(filled):
    # add_feedback read str(session_id) unstripped: the entry recall() cached under
    # "s1" was not found under " s1 ".
    results = await filled.recall("Where was Einstein born?", session_id=" s1 ")
    qa_id = results[0].metadata["qa_id"]
    entry = await filled.add_feedback(" s1 ", qa_id, score=5, text="t" * MAX_FEEDBACK_CHARS)
    assert entry.feedback_score == 5
