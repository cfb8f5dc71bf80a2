"""recall_engine.core.terms: content words, the same however often a text is asked."""

from __future__ import annotations

from recall_engine.core.terms import MEMO_CHARS, terms


def test_a_caller_changing_the_list_it_got_changes_nothing_for_the_next():
    first = terms("The runners were running to the harbours")
    assert first == ["runner", "run", "harbour"]
    first.clear()
    assert terms("The runners were running to the harbours") == ["runner", "run", "harbour"]


def test_a_text_longer_than_the_memo_keeps_every_term():
    text = "harbour " * (MEMO_CHARS // 8 + 10) + "lighthouse"
    assert len(text) > MEMO_CHARS
    found = terms(text)
    assert found[-1] == "lighthous" and len(found) == MEMO_CHARS // 8 + 11
