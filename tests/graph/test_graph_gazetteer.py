"""The first-name gazetteer: broad, and free of common English words."""

from __future__ import annotations

from recall_engine.graph import gazetteer
from recall_engine.graph import lexicon as lx


def test_gazetteer_covers_names_of_several_locales() -> None:
    names = gazetteer.first_names()
    assert len(names) > 3000
    assert {"helen", "aarav", "ingrid", "giuseppe", "priya", "pierre"} <= names


def test_common_words_are_not_first_names() -> None:
    for word in ("hope", "summer", "bill", "will", "may", "june"):
        assert word not in lx.FIRST_NAMES, word
    assert "hope" in gazetteer.common_words()
