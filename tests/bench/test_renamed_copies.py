"""bench._data.renamed_copies: the larger passage corpus of ``--copies N``."""

from __future__ import annotations

import re

from bench._data import renamed_copies
from recall_engine import Document

DOCS = [
    Document(
        title="Orla Venn", text="Orla Venn wrote The Quiet Harbour in Tallin. The book sold well."
    ),
    Document(title="The Quiet Harbour", text="The Quiet Harbour is a novel by Orla Venn."),
    Document(
        title="Harbour",
        text="A harbour is a quiet body of water. The harbour of Tallin is the oldest.",
    ),
]


def test_each_copy_renames_every_name_the_same_way_and_keeps_common_words():
    out = renamed_copies(DOCS, 3)
    assert out[:3] == DOCS  # the originals come first, untouched
    for copy in (out[3:6], out[6:9]):
        first, second, third = copy
        orla, venn = first.text.split()[:2]
        assert (orla, venn) != ("Orla", "Venn")
        assert f"by {orla} {venn}." in second.text  # one name, one made-up word, across texts
        assert first.title == f"{orla} {venn}"
        # "The", "Quiet", "Harbour" are written in lower case somewhere: kept
        assert "The Quiet Harbour" in first.text and "The harbour of" in third.text
        assert "Tallin" not in first.text + third.text
    assert out[3].text != out[6].text  # each copy has names of its own


def test_titles_stay_unique_when_a_title_has_no_name_to_rename():
    out = renamed_copies(DOCS, 3)
    titles = [d.title for d in out]
    assert len(set(titles)) == len(titles) == 9
    assert re.fullmatch(r"Harbour \(2\.2\)", out[5].title)


def test_one_copy_is_the_corpus_itself():
    assert renamed_copies(DOCS, 1) == DOCS
