"""Router rules as data: the record, its validation, and JSON/TOML files of them.

A rule file holds a list of rules, as ``[[rules]]`` tables in TOML or
``{"rules": [...]}`` (or a bare list) in JSON. The default table lives in
``default_rules.toml`` next to this module.
"""

from __future__ import annotations

import json
import math
import re
import tomllib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from recall_engine.core.errors import InvalidRuleError
from recall_engine.core.search_types import SearchTypeName, parse_search_type, search_type_names
from router.matcher import RULE_TIMEOUT_S, lowercase_pattern, probe_rule

_FIELDS = ("id", "description", "pattern", "target", "weight", "case_sensitive", "examples")
_REQUIRED = ("id", "pattern", "target", "weight")


@dataclass(frozen=True, slots=True)
class Rule:
    """One routing cue: when ``pattern`` matches, ``target`` gains ``weight``.

    Case-insensitive rules (the default) are matched against the lowercased
    query, so write them in any case; an escaped uppercase code point (``\\x41``)
    will never match. Patterns must not backtrack catastrophically.

    Raises:
        InvalidRuleError: empty id, a pattern that does not compile or matches the
            empty string, an unknown target, or a negative or non-finite weight.
    """

    id: str
    pattern: str
    target: SearchTypeName
    weight: float
    examples: tuple[str, ...] = ()
    case_sensitive: bool = False
    description: str = ""

    def __post_init__(self) -> None:
        if not isinstance(self.id, str) or not self.id.strip():
            raise InvalidRuleError(f"Router rule id must be a non-empty string, got {self.id!r}.")
        # Coerce through object.__setattr__ because the dataclass is frozen.
        object.__setattr__(self, "target", _parse_target(self.id, self.target))
        object.__setattr__(self, "weight", _parse_weight(self.id, self.weight))
        object.__setattr__(self, "examples", _parse_examples(self.id, self.examples))
        if not isinstance(self.case_sensitive, bool):
            raise InvalidRuleError(f"Router rule {self.id!r}: case_sensitive must be true/false.")
        if not isinstance(self.description, str):
            raise InvalidRuleError(f"Router rule {self.id!r}: description must be a string.")
        _check_pattern(self.id, self.pattern, case_sensitive=self.case_sensitive)

    def to_dict(self) -> dict[str, object]:
        """The rule as plain data, in the shape ``parse_rules`` reads back."""
        return {
            "id": self.id,
            "description": self.description,
            "pattern": self.pattern,
            "target": str(self.target),
            "weight": self.weight,
            "case_sensitive": self.case_sensitive,
            "examples": list(self.examples),
        }


def _parse_target(rule_id: str, value: object) -> SearchTypeName:
    try:
        return parse_search_type(value)  # type: ignore[arg-type]
    except ValueError:
        choices = ", ".join(search_type_names())
        raise InvalidRuleError(
            f"Router rule {rule_id!r}: unknown target {value!r}. Use one of: {choices}."
        ) from None


def _parse_weight(rule_id: str, value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise InvalidRuleError(f"Router rule {rule_id!r}: weight must be a number, got {value!r}.")
    weight = float(value)
    if not math.isfinite(weight) or weight < 0:
        raise InvalidRuleError(
            f"Router rule {rule_id!r}: weight must be a finite number >= 0, got {value!r}. "
            "Use 0 to disable a rule."
        )
    return weight


def _parse_examples(rule_id: str, value: object) -> tuple[str, ...]:
    if isinstance(value, str) or not isinstance(value, Iterable):
        raise InvalidRuleError(f"Router rule {rule_id!r}: examples must be a list of strings.")
    examples = tuple(value)
    if not all(isinstance(e, str) and e.strip() for e in examples):
        raise InvalidRuleError(
            f"Router rule {rule_id!r}: every example must be a non-empty string."
        )
    return examples


def _check_pattern(rule_id: str, pattern: object, *, case_sensitive: bool) -> None:
    if not isinstance(pattern, str) or not pattern:
        raise InvalidRuleError(f"Router rule {rule_id!r}: pattern must be a non-empty string.")
    try:
        # Compile the form the matcher will run, so what loads also routes.
        compiled = re.compile(pattern if case_sensitive else lowercase_pattern(pattern))
    except re.error as exc:
        raise InvalidRuleError(
            f"Router rule {rule_id!r}: pattern {pattern!r} is not a valid regular "
            f"expression ({exc}). Fix the pattern or remove the rule."
        ) from exc
    # A pattern that matches nothing at all would fire on every query.
    if compiled.search("") is not None:
        raise InvalidRuleError(
            f"Router rule {rule_id!r}: pattern {pattern!r} matches the empty string, so it "
            "would fire on every query. Require at least one character."
        )


def check_rule_speed(rule: Rule) -> None:
    """Refuse a rule whose pattern needs more than ``RULE_TIMEOUT_S`` on one of
    its examples or on a short adversarial probe (catastrophic backtracking).

    Raises:
        InvalidRuleError: the pattern ran out of time; the message shows the input.
    """
    source = rule.pattern if rule.case_sensitive else lowercase_pattern(rule.pattern)
    try:
        slow = probe_rule(source, rule.examples)
    except Exception as exc:  # regex's dialect differs from re's in corner cases
        raise InvalidRuleError(
            f"Router rule {rule.id!r}: pattern {rule.pattern!r} cannot be compiled for "
            f"bounded matching ({exc}). Simplify the pattern."
        ) from exc
    if slow is not None:
        shown = slow if len(slow) <= 80 else slow[:77] + "..."
        raise InvalidRuleError(
            f"Router rule {rule.id!r}: pattern {rule.pattern!r} took more than "
            f"{RULE_TIMEOUT_S * 1000:.0f} ms on the {len(slow)}-character input {shown!r}, so it "
            "backtracks catastrophically (nested repetition such as (a|aa)+ or (a+)+). "
            "Rewrite it without nested quantifiers."
        )


def parse_rules(items: Iterable[Mapping[str, Any]], *, source: str = "rules") -> tuple[Rule, ...]:
    """Build rules from plain mappings (as read from JSON or TOML).

    Raises:
        InvalidRuleError: a missing or unknown field, a duplicate id, or any
            problem ``Rule`` refuses; the message names the rule and ``source``.
    """
    rules: list[Rule] = []
    seen: set[str] = set()
    for index, item in enumerate(items, start=1):
        where = f"{source} #{index}"
        if not isinstance(item, Mapping):
            raise InvalidRuleError(f"Router rule {where}: expected a table/object, got {item!r}.")
        name = item.get("id", where)
        missing = [f for f in _REQUIRED if f not in item]
        unknown = sorted(set(item) - set(_FIELDS))
        if missing or unknown:
            problems = []
            if missing:
                problems.append(f"missing {', '.join(missing)}")
            if unknown:
                problems.append(f"unknown field(s) {', '.join(unknown)}")
            raise InvalidRuleError(
                f"Router rule {name!r} ({where}): {'; '.join(problems)}. "
                f"Known fields: {', '.join(_FIELDS)}."
            )
        try:
            rule = Rule(
                id=item["id"],
                pattern=item["pattern"],
                target=item["target"],
                weight=item["weight"],
                examples=item.get("examples", ()),
                case_sensitive=item.get("case_sensitive", False),
                description=item.get("description", ""),
            )
        except InvalidRuleError as exc:
            raise InvalidRuleError(f"{where}: {exc}") from exc
        if rule.id in seen:
            raise InvalidRuleError(f"Router rule {rule.id!r} ({where}): duplicate id.")
        seen.add(rule.id)
        rules.append(rule)
    return tuple(rules)


def load_rules(path: str | Path, *, base: Sequence[Rule] | None = None) -> tuple[Rule, ...]:
    """Read rules from a ``.toml`` or ``.json`` file.

    With ``base`` (e.g. ``DEFAULT_RULES``), the file's rules are merged into it:
    a rule with an existing id replaces that rule in place, new ids are appended.

    Raises:
        InvalidRuleError: the file cannot be read or parsed, or a rule is invalid.
    """
    path = Path(path)
    if path.is_dir():
        raise InvalidRuleError(
            f"Router rules path {str(path)!r} is a folder; pass a .toml or .json rules file."
        )
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise InvalidRuleError(
            f"Router rules file {str(path)!r} is not UTF-8 text ({exc.reason} at byte "
            f"{exc.start}); save it as UTF-8."
        ) from exc
    except OSError as exc:
        raise InvalidRuleError(
            f"Cannot read router rules from {str(path)!r}: {exc.strerror or exc}."
        ) from exc
    try:
        if path.suffix.lower() == ".toml":
            data: object = tomllib.loads(text)
        elif path.suffix.lower() == ".json":
            data = json.loads(text)
        else:
            raise InvalidRuleError(f"Router rules file {str(path)!r} must end in .toml or .json.")
    except (tomllib.TOMLDecodeError, json.JSONDecodeError) as exc:
        raise InvalidRuleError(f"Router rules file {str(path)!r} is malformed: {exc}.") from exc
    items = data.get("rules") if isinstance(data, dict) else data
    if not isinstance(items, list):
        raise InvalidRuleError(
            f"Router rules file {str(path)!r} must hold a list named 'rules' "
            "([[rules]] tables in TOML)."
        )
    rules = parse_rules(items, source=path.name)
    for rule in rules:
        try:
            check_rule_speed(rule)
        except InvalidRuleError as exc:
            raise InvalidRuleError(f"{path.name}: {exc}") from exc
    return merge_rules(base, rules) if base is not None else rules


def merge_rules(base: Sequence[Rule], extra: Iterable[Rule]) -> tuple[Rule, ...]:
    """``base`` with each rule of ``extra`` replacing the rule of the same id
    (keeping its place, hence its tie order) or appended when the id is new."""
    merged = {rule.id: rule for rule in base}
    for rule in extra:
        merged[rule.id] = rule
    return tuple(merged.values())


def save_rules(rules: Iterable[Rule], path: str | Path) -> None:
    """Write rules to a ``.toml`` or ``.json`` file that ``load_rules`` reads back.

    Raises:
        InvalidRuleError: the suffix is neither ``.toml`` nor ``.json``.
    """
    path = Path(path)
    data = [rule.to_dict() for rule in rules]
    if path.suffix.lower() == ".json":
        path.write_text(json.dumps({"rules": data}, indent=2, ensure_ascii=False) + "\n", "utf-8")
    elif path.suffix.lower() == ".toml":
        path.write_text("\n".join(_toml_table(item) for item in data), encoding="utf-8")
    else:
        raise InvalidRuleError(f"Router rules file {str(path)!r} must end in .toml or .json.")


def _toml_table(item: Mapping[str, object]) -> str:
    lines = ["[[rules]]"]
    for key, value in item.items():
        lines.append(f"{key} = {_toml_value(value)}")
    return "\n".join(lines) + "\n"


def _toml_value(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float | int):
        return repr(float(value))
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    text = str(value)
    # Literal strings keep regex backslashes readable; JSON escapes are valid TOML
    # basic-string escapes for everything else.
    if "'" not in text and not any(ord(c) < 32 or ord(c) == 127 for c in text):
        return f"'{text}'"
    return json.dumps(text, ensure_ascii=False)


def _load_default_rules() -> tuple[Rule, ...]:
    text = resources.files("router").joinpath("default_rules.toml").read_text(encoding="utf-8")
    return parse_rules(tomllib.loads(text)["rules"], source="default_rules.toml")


# The table the issue specifies; its order is the tie order.
DEFAULT_RULES: tuple[Rule, ...] = _load_default_rules()

__all__ = [
    "DEFAULT_RULES",
    "Rule",
    "check_rule_speed",
    "load_rules",
    "merge_rules",
    "parse_rules",
    "save_rules",
]
