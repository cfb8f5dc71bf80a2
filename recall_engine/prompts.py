"""Prompt templates: versioned files in the ``prompts`` package, one cached loader.

A prompt file is ``prompts/<name>.v<version>.txt``. A line ``[system]`` or
``[user]`` starts that part; a file without markers is a user message only.
Variables are ``$name`` (``string.Template``; write ``$$`` for a literal
dollar), so JSON examples in prompts need no escaping.

Rendering is strict both ways: a missing variable and an unexpected one both
raise ``PromptRenderError``, because a misspelt keyword would otherwise render
a prompt silently missing its context. Every prompt's variables are declared
in ``PROMPT_VARIABLES`` and a test checks each file against it.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from string import Template

from recall_engine.core.errors import PromptNotFoundError, PromptRenderError

PROMPTS_PACKAGE = "prompts"

# name -> the variables its v1 template uses. Add a line when you add a prompt.
PROMPT_VARIABLES: dict[str, frozenset[str]] = {
    "answer_from_context": frozenset({"question", "context", "history", "support"}),
    "answer_from_graph_context": frozenset({"question", "context", "history", "support"}),
    "summarize_search_results": frozenset({"query", "context"}),
    "cot_validation": frozenset({"question", "answer", "context"}),
    "cot_followup": frozenset({"question", "answer", "reasoning"}),
    "query_time_extraction": frozenset({"query", "now"}),
    "decomposition": frozenset({"question", "max_subquestions"}),
    "text_to_cypher": frozenset({"question", "schema"}),
    "search_type_selection": frozenset({"query", "search_types"}),
    "agentic_step": frozenset({"question", "tools", "observations"}),
    "graph_extraction": frozenset({"text", "entity_types"}),
    "structured_output": frozenset({"schema"}),
    "structured_output_retry": frozenset({"error"}),
    "summarize_trace": frozenset({"call"}),
    "answer_from_records": frozenset({"question", "context", "history", "support"}),
    "graph_report": frozenset({"question", "context", "history", "support"}),
}

_NAME = re.compile(r"^[a-z0-9_]+$")
_SECTION = re.compile(r"^\[(system|user)\]\s*$", re.MULTILINE)


@dataclass(frozen=True)
class RenderedPrompt:
    """A rendered prompt: an optional system message and a user message."""

    name: str
    system: str | None
    user: str

    def messages(self, *, system_override: str | None = None) -> list[dict[str, str]]:
        """Chat messages; ``system_override`` replaces the template's system part."""
        system = system_override if system_override is not None else self.system
        out = [{"role": "system", "content": system}] if system else []
        out.append({"role": "user", "content": self.user})
        return out


@functools.lru_cache(maxsize=128)
def load_prompt(name: str, version: int = 1) -> str:
    """Return the raw text of ``prompts/<name>.v<version>.txt`` (cached).

    Raises:
        PromptNotFoundError: no such prompt file in the installed package.
    """
    if not _NAME.match(name):
        raise PromptNotFoundError(
            f"Prompt name {name!r} is not valid: use lowercase letters, digits and '_'."
        )
    filename = f"{name}.v{version}.txt"
    resource = resources.files(PROMPTS_PACKAGE).joinpath(filename)
    try:
        return resource.read_text(encoding="utf-8")
    except (FileNotFoundError, IsADirectoryError) as exc:
        raise PromptNotFoundError(
            f"Prompt {filename!r} does not exist in the {PROMPTS_PACKAGE!r} package. "
            f"Known prompts: {', '.join(available_prompts())}."
        ) from exc


def available_prompts() -> list[str]:
    """The names of every ``*.v<N>.txt`` file shipped in the prompts package."""
    names = set()
    for entry in resources.files(PROMPTS_PACKAGE).iterdir():
        match = re.match(r"^([a-z0-9_]+)\.v\d+\.txt$", entry.name)
        if match:
            names.add(match.group(1))
    return sorted(names)


def template_variables(text: str) -> frozenset[str]:
    """The ``$variables`` a template text uses."""
    return frozenset(Template(text).get_identifiers())


def _split(text: str) -> tuple[str | None, str]:
    parts = _SECTION.split(text)
    if len(parts) == 1:
        return None, text.strip()
    sections = dict(zip(parts[1::2], (p.strip() for p in parts[2::2]), strict=True))
    return sections.get("system") or None, sections.get("user", "")


def render_template(text: str, variables: dict[str, object], *, label: str = "prompt") -> str:
    """Substitute ``variables`` into ``text``, strictly.

    Raises:
        PromptRenderError: a variable is missing, unexpected, or the template is malformed.
    """
    _check_variables(text, variables, label=label)
    return _substitute(text, variables, label=label)


def _check_variables(text: str, variables: dict[str, object], *, label: str) -> None:
    used = template_variables(text)
    missing, extra = used - variables.keys(), variables.keys() - used
    if missing or extra:
        problems = []
        if missing:
            problems.append(f"missing {sorted(missing)}")
        if extra:
            problems.append(f"unexpected {sorted(extra)}")
        raise PromptRenderError(
            f"Cannot render {label}: {'; '.join(problems)}. It takes exactly {sorted(used)}."
        )


def _substitute(text: str, variables: dict[str, object], *, label: str) -> str:
    try:
        return Template(text).substitute({k: str(v) for k, v in variables.items()})
    except ValueError as exc:  # a stray '$' in the template
        raise PromptRenderError(f"Cannot render {label}: {exc} (write '$$' for '$').") from exc


def render_prompt(name: str, *, version: int = 1, **variables: object) -> RenderedPrompt:
    """Load and render prompt ``name``; see the module docstring for the rules.

    The template is split into its parts before the values go in, so a value with a
    line ``[system]`` or ``[user]`` (a remembered text, a question) stays text.

    Raises:
        PromptNotFoundError: no such prompt file.
        PromptRenderError: a missing or unexpected variable.
    """
    text = load_prompt(name, version)
    label = f"prompt {name}.v{version}"
    _check_variables(text, variables, label=label)
    system, user = _split(text)
    return RenderedPrompt(
        name=name,
        system=_substitute(system, variables, label=label).strip() or None if system else None,
        user=_substitute(user, variables, label=label).strip(),
    )


def read_prompt_file(path: str | Path) -> str:
    """Read a caller's prompt file (``system_prompt_path``), used verbatim (no variables).

    A file with ``[system]``/``[user]`` parts contributes its system part only.
    A relative path that does not exist is also looked up in the prompts package,
    so ``"answer_from_context.v1.txt"`` works as it does in Cognee.

    Raises:
        PromptNotFoundError: the file exists in neither place.
    """
    candidate = Path(path).expanduser()
    if candidate.is_file():
        return _system_part(candidate.read_text(encoding="utf-8"))
    if not candidate.is_absolute():
        packaged = resources.files(PROMPTS_PACKAGE).joinpath(str(path))
        if packaged.is_file():
            return _system_part(packaged.read_text(encoding="utf-8"))
    raise PromptNotFoundError(
        f"System prompt file {str(path)!r} does not exist (looked in the working directory "
        f"and the {PROMPTS_PACKAGE!r} package)."
    )


def _system_part(text: str) -> str:
    system, user = _split(text)
    return system if system is not None else user
