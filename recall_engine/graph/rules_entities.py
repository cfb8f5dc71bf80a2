"""Rule-based entity spotting: sentences, identifiers, quoted titles and names.

The passes run in a fixed order and each claims its characters, so a later pass
never re-reads them: URLs, emails, error codes, ids, date phrases, quoted titles,
then capitalised name spans. Name types are guessed from cue words (see
``guess_type``); a guess that stays CONCEPT may be refined by a relation pattern
(``lives in X`` makes X a PLACE) or later by entity resolution.
"""

from __future__ import annotations

from dataclasses import dataclass

import regex

from recall_engine.core.graph import EntityType
from recall_engine.core.names import normalize_name, strip_possessive
from recall_engine.graph import lexicon as lx

T = EntityType


@dataclass(slots=True)
class Span:
    """One entity occurrence in a chunk (mutable while a chunk is processed)."""

    start: int
    end: int
    surface: str
    name: str
    type: EntityType
    identifier: str | None = None
    alias: str | None = None  # another surface worth keeping, e.g. "Dr. Ada Lovelace"
    pronoun: str | None = None  # "subject" | "object" | "possessive": the speaker, implied


# A run of marks is matched from its first mark only, and never given back: a long run
# of "." that ends no sentence costs its length once, not its length squared.
_BOUNDARY = regex.compile(r"(?<![.!?…])[.!?…]++[\"'”’)\]]*+(?=\s|$)|\n")
_WORD_BEFORE = regex.compile(r"([\p{L}.]+)$")


def split_sentences(text: str) -> list[tuple[int, int]]:
    """Sentence ``(start, end)`` offsets; a full stop after "Dr" or initials
    ("J.K.") is not a boundary. Blank sentences are dropped."""
    out: list[tuple[int, int]] = []
    start = 0
    for m in _BOUNDARY.finditer(text):
        if m.group().startswith(".") and _abbreviation_before(text, m.start()):
            continue
        _append_trimmed(out, text, start, m.end())
        start = m.end()
    _append_trimmed(out, text, start, len(text))
    return out


def _abbreviation_before(text: str, dot: int) -> bool:
    m = _WORD_BEFORE.search(text, max(0, dot - 12), dot)
    if m is None:
        return False
    word = m.group(1).lower().strip(".")
    # Initials ("J.K.", "R.") are letters between full stops: no sentence ends there.
    return word in lx.ABBREVIATIONS or all(len(p) == 1 and p.isalpha() for p in word.split("."))


def _append_trimmed(out: list[tuple[int, int]], text: str, start: int, end: int) -> None:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    if end > start:
        out.append((start, end))


class Claims:
    """Which characters an earlier pass already turned into an entity."""

    def __init__(self, size: int) -> None:
        self._mask = bytearray(size)

    def free(self, start: int, end: int) -> bool:
        return self._mask.find(1, start, end) == -1

    def claim(self, start: int, end: int) -> None:
        self._mask[start:end] = b"\x01" * (end - start)


_URL = regex.compile(r"\b(?:https?://|www\.)[^\s<>\"'`]+", regex.IGNORECASE)
_EMAIL = regex.compile(r"(?<![\w.+-])[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
_ERROR_CODE = regex.compile(
    r"\b(?:(?:ERR|ERROR|EXC|ORA|HTTP)[-_ ]?\d{2,6}|E\d{3,5}|0x[0-9A-Fa-f]{4,8})\b"
)
_ID = regex.compile(r"\b[A-Z][A-Z0-9]{1,9}-\d{1,7}\b")
# (pattern, type, characters stripped from the end of a match)
IDENTIFIER_PATTERNS: tuple[tuple[regex.Pattern[str], EntityType, str], ...] = (
    (_URL, T.URL, ".,;:!?)]}'\""),
    (_EMAIL, T.EMAIL, "."),
    (_ERROR_CODE, T.ERROR_CODE, ""),
    (_ID, T.ID, ""),
)


def identifier_spans(text: str, claims: Claims) -> list[Span]:
    """URLs, emails, error codes and ids; the identifier is the match itself."""
    spans: list[Span] = []
    for pattern, type_, trailing in IDENTIFIER_PATTERNS:
        for m in pattern.finditer(text):
            value = m.group().rstrip(trailing) if trailing else m.group()
            start, end = m.start(), m.start() + len(value)
            if value and claims.free(start, end):
                claims.claim(start, end)
                spans.append(Span(start, end, value, value, type_, identifier=value))
    return spans


_QUOTED = regex.compile(r"[\"“]([^\"“”\n]{1,100})[\"”]")


def quoted_title_spans(text: str, claims: Claims) -> list[Span]:
    """Quoted titles ("Charlotte's Web") as WORK; quoted speech is left alone."""
    spans: list[Span] = []
    for m in _QUOTED.finditer(text):
        title = m.group(1).strip()
        if _looks_like_title(title) and claims.free(m.start(), m.end()):
            claims.claim(m.start(), m.end())
            spans.append(Span(m.start(1), m.end(1), m.group(1), title, T.WORK))
    return spans


def _looks_like_title(title: str) -> bool:
    words = title.split()
    if not 1 <= len(words) <= 8 or title[-1] in ".,;:!?" or not title[0].isupper():
        return False
    return all(w[0].isupper() or w[0].isdigit() or w.lower() in lx.TITLE_SMALL_WORDS for w in words)


_WORD = r"\p{Lu}[\p{L}\p{M}\p{N}]*(?:['’\-][\p{L}\p{M}]+)*"
_CONNECTOR = "|".join(regex.escape(c) for c in sorted(lx.SPAN_CONNECTORS, key=len, reverse=True))
_HONORIFIC = r"(?:Dr|Mr|Mrs|Ms|Mx|Prof|Sir|Dame|Lady|Lord|Rev)\.?[ \t]+"
_NAME = regex.compile(
    rf"(?<![\p{{L}}\p{{N}}])(?P<hon>{_HONORIFIC})?{_WORD}"
    rf"(?:(?:[ \t]+(?:{_CONNECTOR})){{0,2}}[ \t]+{_WORD})*"
)
_TOKEN = regex.compile(r"[^\s]+")
_POSSESSIVE_END = regex.compile(r"['’]s$")
_STARTERS = frozenset("\"“‘'([:;-–—*•>#")  # "#": a Markdown heading opens a sentence
_PREV_WORD = regex.compile(r"([\p{L}']+)[ \t]+$")


@dataclass(slots=True)
class _Run:
    start: int
    end: int
    honorific: str
    at_start: bool


def name_spans(
    text: str, sentence_starts: set[int], claims: Claims, speaker: str | None
) -> tuple[list[Span], list[Span]]:
    """Capitalised name spans with guessed types, and the sentence-initial words
    set aside. A single capitalised word that opens a sentence counts only if it
    is a known name, also appears capitalised mid-sentence in the chunk, or is the
    surname of a person named in the chunk ("Ada Lovelace ... Lovelace's notes"):
    "Painting is fun" yields nothing. The rest of those words are returned apart
    (common words excluded) so the dataset's known names can still claim them."""
    runs: list[_Run] = []
    shouty = _CAPS_RUN.search(text) is not None
    for m in _NAME.finditer(text):
        if not claims.free(m.start(), m.end()) or (shouty and _shouting(text, m.start())):
            continue
        runs.extend(_split_run(text, m.start(), m.end(), m.group("hon") or "", sentence_starts))
    mid_names = {normalize_name(text[r.start : r.end]) for r in runs if not r.at_start}
    mid_names |= _surnames(text, runs)
    known = {normalize_name(speaker)} if speaker else set()
    spans: list[Span] = []
    set_aside: list[Span] = []
    for run in runs:
        surface = text[run.start : run.end]
        name = strip_possessive(surface[len(run.honorific) :]).strip()
        key = normalize_name(name)
        if not key:
            continue
        single = " " not in name
        if single and not run.honorific and _not_a_name_alone(key, known):
            continue
        if run.at_start and single and not run.honorific and not _known(key, mid_names, known):
            if key not in lx.COMMON_SENTENCE_STARTS and len(key) > 1 and not name.isupper():
                set_aside.append(Span(run.start, run.end, surface, name, T.CONCEPT))
            continue
        claims.claim(run.start, run.end)
        type_ = guess_type(name, bool(run.honorific), _previous_word(text, run.start), known)
        alias = surface.strip() if run.honorific else short_name(name, type_)
        spans.append(Span(run.start, run.end, surface, name, type_, alias=alias))
    return spans, set_aside


def short_name(name: str, type_: EntityType) -> str | None:
    """The name an organisation goes by without its legal form ("Acme" for "Acme
    Corp"), kept as an alias so that resolution joins the two; None otherwise."""
    words = name.split()
    if type_ is not T.ORGANIZATION or len(words) < 2 or words[-1].lower() not in lx.LEGAL_FORMS:
        return None
    return " ".join(words[:-1]).rstrip(",")


def _not_a_name_alone(key: str, known: set[str]) -> bool:
    """One word that names no entity by itself, whatever its capital: a weekday
    or month abbreviation or a weekday in the plural ("Wed", "Sept", "Fridays":
    times, which the date pass reads), or one letter (an initial cut off its
    name, as in "J.K." or "George R. R. Martin"). The speaker's name is kept."""
    if key in known:
        return False
    return len(key) == 1 or key in lx.DATE_ABBREVIATIONS or key.removesuffix("s") in lx.WEEKDAYS


CLASS_PREDICATES = frozenset({"is_a", "works_as"})
"""Noun-phrase predicates whose object is a class the subject belongs to."""


def bare_common_noun(predicate: str, phrase: str) -> bool:
    """Whether a noun-phrase object is one lowercase word or one letter that
    stands for some unnamed thing ("went to *the beach*", "made *a bowl*",
    "joined *a gym*"): not an entity. One word cannot tell one beach from
    another, so as a node it would join every passage that uses the word and
    nothing else. After ``is_a``/``works_as`` the word is a class ("Ada is a
    mathematician"), which is what a shared node means, so it stays; longer
    phrases ("a pottery class") and known places stay too."""
    if predicate in CLASS_PREDICATES:
        return False
    key = normalize_name(phrase)
    return " " not in key and (phrase.islower() or len(key) == 1) and key not in lx.PLACES


def _known(key: str, mid_names: set[str], known: set[str]) -> bool:
    return key in mid_names or key in known or key in lx.FIRST_NAMES or key in lx.PLACES


def _surnames(text: str, runs: list[_Run]) -> set[str]:
    """Last words of the chunk's multi-word names that look like people's
    (an honorific or a known first name)."""
    out = set()
    for run in runs:
        words = normalize_name(text[run.start + len(run.honorific) : run.end]).split()
        if len(words) > 1 and (run.honorific or words[0] in lx.FIRST_NAMES):
            out.add(words[-1])
    return out


def _split_run(
    text: str, start: int, end: int, honorific: str, sentence_starts: set[int]
) -> list[_Run]:
    """Cut a capitalised run at words that are never names ("Hey Mel" -> "Mel"),
    but not at the lowercase connectors inside one ("Lord of the Rings"); and
    where a word repeats the one before it, two names meet ("on Grace Grace
    Hopper", a heading run into its paragraph): a name says no word twice."""
    runs: list[_Run] = []
    current: list[tuple[int, int]] = []
    body = start + len(honorific)
    for m in _TOKEN.finditer(text, body, end):
        token = m.group()
        word = strip_possessive(token).lower()
        if word in lx.NOT_NAMES and token not in lx.SPAN_CONNECTORS:
            runs.extend(_close(text, current, sentence_starts))
            current = []
            continue
        if current and text[current[-1][0] : current[-1][1]] == token:
            runs.extend(_close(text, current, sentence_starts))
            current = []
        current.append((m.start(), m.end()))
        if _POSSESSIVE_END.search(token):  # "Ada's Notes": the owner ends here
            runs.extend(_close(text, current, sentence_starts))
            current = []
    runs.extend(_close(text, current, sentence_starts))
    if honorific and runs and runs[0].start == body:
        runs[0].start, runs[0].honorific = start, honorific
        runs[0].at_start = False
    return runs


def _close(text: str, tokens: list[tuple[int, int]], sentence_starts: set[int]) -> list[_Run]:
    while tokens and not text[tokens[0][0]].isupper():
        tokens = tokens[1:]
    while tokens and not text[tokens[-1][0]].isupper():
        tokens = tokens[:-1]
    if not tokens:
        return []
    start = tokens[0][0]
    at_start = start in sentence_starts or _after_starter(text, start)
    return [_Run(start, tokens[-1][1], "", at_start)]


def _after_starter(text: str, start: int) -> bool:
    i = start - 1
    while i >= 0 and text[i] in " \t":
        i -= 1
    return i < 0 or text[i] in _STARTERS


_CAPS_RUN = regex.compile(r"\b\p{Lu}{2,}(?:\W+\p{Lu}{2,}){2,}\b")


def _shouting(text: str, at: int) -> bool:
    """In an all-caps passage every word is capitalised; names cannot be told apart."""
    window = text[max(0, at - 40) : at + 40]
    letters = [c for c in window if c.isalpha()]
    return len(letters) >= 12 and sum(c.isupper() for c in letters) > 0.7 * len(letters)


def _previous_word(text: str, start: int) -> str:
    m = _PREV_WORD.search(text, max(0, start - 24), start)
    return m.group(1).lower() if m else ""


def guess_type(
    name: str, honorific: bool, previous_word: str, known_people: set[str]
) -> EntityType:
    """A modest, deterministic type guess from cue words, in this order: honorific
    -> PERSON; organisation, event, project, place cue words; gazetteer places;
    known first names and the speaker -> PERSON; after "in/to/from" -> PLACE;
    otherwise CONCEPT."""
    words = name.lower().split()
    key = normalize_name(name)
    first, last = words[0], words[-1]
    if honorific:
        return T.PERSON
    if last in lx.ORGANIZATION_SUFFIXES or (first in lx.ORGANIZATION_PREFIXES and len(words) > 1):
        return T.ORGANIZATION
    if last in lx.EVENT_SUFFIXES:
        return T.EVENT
    if "project" in (first, last) and len(words) > 1:
        return T.PROJECT
    if key in lx.PLACES or (
        len(words) > 1 and (last in lx.PLACE_SUFFIXES or first in lx.PLACE_PREFIXES)
    ):
        return T.PLACE
    if key in known_people or (first in lx.FIRST_NAMES and len(words) <= 3):
        return T.PERSON
    if previous_word in lx.PLACE_PREPOSITIONS and not name.isupper():
        return T.PLACE
    return T.CONCEPT


_PRONOUNS = regex.compile(
    r"\b(?:(?P<subject>I|[Ww]e)|(?P<object>me|us)|(?P<possessive>[Mm]y|[Oo]ur))\b"
)


def speaker_pronoun_spans(text: str, speaker: str) -> list[Span]:
    """First-person pronouns of a conversation turn, standing for its speaker."""
    return [
        Span(m.start(), m.end(), m.group(), speaker, T.PERSON, pronoun=m.lastgroup)
        for m in _PRONOUNS.finditer(text)
    ]
