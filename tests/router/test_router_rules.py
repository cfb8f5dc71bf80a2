"""Rules as data: validation, JSON/TOML files, replacing and adding rules."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from recall_engine.core.errors import InvalidRuleError
from recall_engine.core.search_types import SearchType
from router import DEFAULT_RULES, Router, Rule, load_rules, merge_rules, parse_rules, save_rules

CUSTOM_TOML = """
[[rules]]
id = "temporal.word"
pattern = '\\b(?:when|before|after)\\b'
target = "TEMPORAL"
weight = 0.0

[[rules]]
id = "docs.cue"
description = "Questions about documentation."
pattern = '\\bdocs?\\b'
target = "RAG_COMPLETION"
weight = 3
examples = ["Where are the docs for the API?"]
"""


def _write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_load_toml_replaces_by_id_in_place_and_appends_new_rules(tmp_path: Path) -> None:
    rules = load_rules(_write(tmp_path, "rules.toml", CUSTOM_TOML), base=DEFAULT_RULES)
    ids = [r.id for r in rules]
    assert ids == [r.id for r in DEFAULT_RULES] + ["docs.cue"]
    replaced = rules[ids.index("temporal.word")]
    assert replaced.weight == 0.0
    router = Router(rules)
    assert router.route("What happened before the outage?").default  # weight 0 now
    decision = router.route("Where are the docs for the API?")
    assert decision.search_type is SearchType.RAG_COMPLETION
    assert decision.fired == ["docs.cue"]


def test_load_json_object_or_bare_list(tmp_path: Path) -> None:
    item = {"id": "sku", "pattern": r"\bsku-\d+", "target": "chunks_lexical", "weight": 4}
    for text in (json.dumps({"rules": [item]}), json.dumps([item])):
        (rule,) = load_rules(_write(tmp_path, "rules.json", text))
        assert rule == Rule(
            id="sku", pattern=r"\bsku-\d+", target=SearchType.CHUNKS_LEXICAL, weight=4.0
        )
    assert (
        Router([rule]).route("Where is SKU-991 stocked?").search_type is SearchType.CHUNKS_LEXICAL
    )


@pytest.mark.parametrize("suffix", [".toml", ".json"])
def test_save_then_load_round_trips_the_default_table(tmp_path: Path, suffix: str) -> None:
    path = tmp_path / f"rules{suffix}"
    save_rules(DEFAULT_RULES, path)
    assert load_rules(path) == DEFAULT_RULES


def test_save_toml_escapes_awkward_strings(tmp_path: Path) -> None:
    rule = Rule(
        id="q", pattern=r"it's\b", target=SearchType.CHUNKS, weight=1, description="tab\there"
    )
    path = tmp_path / "rules.toml"
    save_rules([rule], path)
    assert load_rules(path) == (rule,)


def test_merge_rules_keeps_position_of_replaced_rule() -> None:
    first, second = DEFAULT_RULES[:2]
    new_first = Rule(id=first.id, pattern="x+y", target=SearchType.CHUNKS, weight=1)
    assert merge_rules([first, second], [new_first]) == (new_first, second)


def test_rules_can_be_listed_as_plain_data() -> None:
    listed = [rule.to_dict() for rule in DEFAULT_RULES]
    assert parse_rules(listed) == DEFAULT_RULES
    assert set(listed[0]) == {
        "id",
        "description",
        "pattern",
        "target",
        "weight",
        "case_sensitive",
        "examples",
    }


def _rule(**changes: object) -> dict[str, object]:
    item: dict[str, object] = {
        "id": "mine",
        "pattern": r"\bfoo\b",
        "target": "TEMPORAL",
        "weight": 1,
    }
    item.update(changes)
    return item


@pytest.mark.parametrize(
    ("item", "message"),
    [
        (_rule(pattern="(unclosed"), "not a valid regular expression"),
        (_rule(pattern="[z-a]"), "not a valid regular expression"),
        (_rule(pattern=""), "non-empty string"),
        (_rule(pattern="x*"), "matches the empty string"),
        (_rule(target="TELEPATHY"), "unknown target 'TELEPATHY'"),
        (_rule(target=3), "unknown target"),
        (_rule(weight=-1), "weight must be a finite number >= 0"),
        (_rule(weight=math.nan), "weight must be a finite number >= 0"),
        (_rule(weight=math.inf), "weight must be a finite number >= 0"),
        (_rule(weight="5"), "weight must be a number"),
        (_rule(weight=True), "weight must be a number"),
        (_rule(examples="why"), "examples must be a list"),
        (_rule(examples=[""]), "every example must be a non-empty string"),
        (_rule(case_sensitive="yes"), "case_sensitive"),
        (_rule(id=" "), "id must be a non-empty string"),
        ({"id": "mine", "pattern": "x", "target": "TEMPORAL"}, "missing weight"),
        (_rule(wieght=2), "unknown field(s) wieght"),
    ],
)
def test_invalid_rules_are_refused_with_the_rule_named(
    item: dict[str, object], message: str
) -> None:
    with pytest.raises(InvalidRuleError, match="Router rule") as caught:
        parse_rules([item])
    assert message in str(caught.value)
    if str(item.get("id", "")).strip():
        assert "'mine'" in str(caught.value)
    assert isinstance(caught.value, ValueError)


def test_duplicate_ids_are_refused() -> None:
    with pytest.raises(InvalidRuleError, match=r"'mine'.*duplicate id"):
        parse_rules([_rule(), _rule()])


def test_rule_constructor_validates_too() -> None:
    with pytest.raises(InvalidRuleError, match=r"'direct'.*unknown target"):
        Rule(id="direct", pattern="x", target="NOPE", weight=1)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("name", "text", "message"),
    [
        ("rules.toml", "[[rules]\nid=", "malformed"),
        ("rules.json", "{", "malformed"),
        ("rules.json", '{"rules": {"id": "x"}}', "must hold a list named 'rules'"),
        ("rules.yaml", "rules: []", "must end in .toml or .json"),
        (
            "rules.toml",
            '[[rules]]\nid = "bad"\npattern = "("\ntarget = "TEMPORAL"\nweight = 1\n',
            "rules.toml #1: Router rule 'bad': pattern '('",
        ),
    ],
)
def test_bad_rule_files_are_refused(tmp_path: Path, name: str, text: str, message: str) -> None:
    with pytest.raises(InvalidRuleError) as caught:
        load_rules(_write(tmp_path, name, text))
    assert message in str(caught.value)


def test_missing_rule_file_is_refused(tmp_path: Path) -> None:
    with pytest.raises(InvalidRuleError, match="Cannot read router rules"):
        load_rules(tmp_path / "absent.toml")


def test_uppercase_letters_in_case_insensitive_rules_still_match() -> None:
    router = Router(
        [Rule(id="k8s", pattern=r"\bKubernetes\b\s\S+", target=SearchType.CHUNKS, weight=3)]
    )
    assert router.route("kubernetes Pods").search_type is SearchType.CHUNKS
    assert router.route("KUBERNETES pods").search_type is SearchType.CHUNKS
