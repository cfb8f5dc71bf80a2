"""recall_engine.core.names: one key per name, the same on the ASCII fast path and off it,
and no large text kept in the memo."""

from __future__ import annotations

import pytest
import regex

from recall_engine.core import names
from recall_engine.core.names import MEMO_CHARS, normalize_name

_LETTERS_AND_DIGITS = regex.compile(r"[^\p{L}\p{N}]+")


def _reference(name: str) -> str:
    """The key as the module defines it, by the Unicode classes alone."""
    import unicodedata

    text = unicodedata.normalize("NFKC", name)
    text = names.strip_possessive(names.strip_honorific(text))
    return _LETTERS_AND_DIGITS.sub(" ", text.casefold()).strip()


@pytest.mark.parametrize(
    "name, key",
    [
        ("Dr. Ada Lovelace", "ada lovelace"),
        ("Caroline's", "caroline"),
        ("  ERR_4012 -- retry!  ", "err 4012 retry"),
        ("James'", "james"),
        ("Mr.", "mr"),
        ("Ｒenée Müller", "renée müller"),
        ("STRASSE", "strasse"),
        ("Straße", "strasse"),
        ("ﬁne_tuning", "fine tuning"),
        ("", ""),
        ("!!!", ""),
    ],
)
def test_a_name_has_the_key_of_its_letters_and_digits(name: str, key: str) -> None:
    assert normalize_name(name) == key == _reference(name)


def test_ascii_and_unicode_text_get_the_same_key_as_the_unicode_classes_give() -> None:
    pieces = ["Ada", "’s", "'", "_", "-", "4012", "Ünal", "ß", "\t", "Dr.", "中文", "½", " "]
    texts = [a + b + c for a in pieces for b in pieces for c in pieces]
    assert [normalize_name(t) for t in texts] == [_reference(t) for t in texts]


def test_a_long_text_gets_its_key_without_entering_the_memo() -> None:
    names._memo_key.cache_clear()
    context = "Caroline's talk about the support group. " * (MEMO_CHARS // 20)
    assert len(context) > MEMO_CHARS
    key = normalize_name(context)
    assert key.startswith("caroline s talk about") and key.endswith("support group")
    assert names._memo_key.cache_info().currsize == 0
    assert normalize_name("Caroline") == "caroline"
    assert names._memo_key.cache_info().currsize == 1
