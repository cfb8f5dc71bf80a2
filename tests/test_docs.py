"""The docs cannot drift from the code: every search type and every recall() option is
in the Recall reference, and the generated pages cover every setting and option.

``make test`` also builds the site with ``mkdocs build --strict``; these checks are the
fast part of that, run with the tests."""

import importlib.util
import inspect
import re
from pathlib import Path

from recall_engine import RecallConfig, RecallEngine, SearchType

DOCS = Path(__file__).resolve().parents[1] / "docs"


def _hooks():
    path = DOCS / "hooks" / "generated_pages.py"
    spec = importlib.util.spec_from_file_location("generated_pages", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _recall_options() -> list[str]:
    parameters = inspect.signature(RecallEngine.recall).parameters
    return [name for name in parameters if name != "self"]


def _first_column(markdown: str, heading: str) -> set[str]:
    section = markdown.split(f"## {heading}\n", 1)[1].split("\n## ", 1)[0]
    return set(re.findall(r"^\| `([^`]+)` \|", section, re.M))


def test_every_search_type_is_in_the_recall_reference_table():
    documented = _first_column((DOCS / "recall.md").read_text(encoding="utf-8"), "Search types")
    assert documented == {t.value for t in SearchType}


def test_every_recall_option_is_in_the_recall_reference_table():
    documented = _first_column((DOCS / "recall.md").read_text(encoding="utf-8"), "Options")
    assert documented == set(_recall_options())


def test_the_settings_page_lists_every_setting_and_its_variable():
    from recall_engine.config import ENV_VARS

    assert "<!-- generated:settings -->" in (DOCS / "configuration.md").read_text("utf-8")
    table = _hooks().settings_table()
    for name in RecallConfig.model_fields:
        assert f"| `{name}` |" in table
    for variable in ENV_VARS:
        assert f"`{variable}`" in table


def test_the_recall_reference_lists_the_options_of_every_search_type():
    from retrievers import RETRIEVERS

    assert "<!-- generated:retriever-options -->" in (DOCS / "recall.md").read_text("utf-8")
    generated = _hooks().retriever_options()
    for search_type, retriever in RETRIEVERS.items():
        assert f"### `{search_type.value}`" in generated
        for option in retriever.config_model.model_fields:
            assert f"| `{option}` |" in generated
