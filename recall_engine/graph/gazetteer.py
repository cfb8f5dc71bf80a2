"""First names from a maintained, MIT-licensed gazetteer: Faker's person providers.

Faker (``faker>=30``) ships first-name lists per locale, drawn from public records
(the US Social Security and census lists for ``en_US``, national statistics
elsewhere), and is released every few weeks. The older ``names`` package carries
only the 1990 US census lists and has not been released since 2013, so Faker it is.

Only Latin-script locales whose names turn up in English text are read. A name
that is also a common English word (Faker's own English word list: "hope",
"bill", "summer") is left out, so a sentence-initial "Hope you ..." is not taken
for a person; the extractor still finds such names mid-sentence by their capital.
"""

from __future__ import annotations

import importlib
from functools import lru_cache

LOCALES = (
    "en_US", "en_GB", "en_IE", "en_NZ", "en_IN", "en_NG", "en_KE", "en_PK",
    "es_ES", "fr_FR", "de_DE", "it_IT", "pt_BR", "nl_NL",
)  # fmt: skip
_NAME_ATTRS = ("first_names", "first_names_male", "first_names_female", "first_names_nonbinary")


def _locale_names(locale: str) -> set[str]:
    provider = importlib.import_module(f"faker.providers.person.{locale}").Provider
    out: set[str] = set()
    for attr in _NAME_ATTRS:
        for name in getattr(provider, attr, ()) or ():
            out.add(" ".join(str(name).casefold().split()))
    return out


@lru_cache(maxsize=1)
def common_words() -> frozenset[str]:
    """Faker's list of common English words (about a thousand)."""
    from faker.providers.lorem.en_US import Provider

    return frozenset(w.casefold() for w in Provider.word_list)


@lru_cache(maxsize=1)
def first_names() -> frozenset[str]:
    """Lowercase first names of every locale in ``LOCALES``, common words removed."""
    names: set[str] = set()
    for locale in LOCALES:
        names |= _locale_names(locale)
    return frozenset(n for n in names if len(n) > 1) - common_words()
