import itertools
from datetime import datetime

from recall_engine.core.models import Message
from recall_engine.ingest.chunking import (
    _HEADING,
    _SENTENCE_END,
    MAX_CHARS_PER_TOKEN,
    chunk_item,
    chunk_text,
    count_tokens,
    heading_sections,
    message_chunk,
    split_sentences,
)
from recall_engine.ingest.source_items import SourceItem


def test_sentences_split_on_terminal_punctuation_but_not_abbreviations():
    text = "Dr. Ada Lovelace met Mr. Babbage in 1833. They talked for hours! Did it matter? Yes."
    assert split_sentences(text) == [
        "Dr. Ada Lovelace met Mr. Babbage in 1833.",
        "They talked for hours!",
        "Did it matter?",
        "Yes.",
    ]


def test_paragraphs_and_headings_end_sentences():
    text = "# Title\nFirst line without a stop\n\nSecond paragraph."
    assert split_sentences(text) == ["# Title", "First line without a stop", "Second paragraph."]


def test_chunks_respect_the_token_budget_and_keep_every_sentence():
    sentences = [f"Sentence number {i} talks about topic {i} at some length." for i in range(40)]
    chunks = chunk_text(" ".join(sentences), chunk_size=50, chunk_overlap=0)
    assert len(chunks) > 1
    assert all(count_tokens(c) <= 50 for c in chunks)
    assert " ".join(chunks) == " ".join(sentences)


def test_overlap_repeats_whole_trailing_sentences():
    sentences = [f"Fact {i} is here." for i in range(30)]
    chunks = chunk_text(" ".join(sentences), chunk_size=30, chunk_overlap=10)
    for left, right in itertools.pairwise(chunks):
        left_s, right_s = split_sentences(left), split_sentences(right)
        carried = next(k for k in range(1, len(left_s)) if left_s[-k] == right_s[0])
        assert right_s[:carried] == left_s[-carried:]
        assert count_tokens(" ".join(right_s[:carried])) <= 10
    assert all(count_tokens(c) <= 30 for c in chunks)


def test_a_sentence_longer_than_the_budget_is_cut_at_word_boundaries():
    long_sentence = " ".join(f"word{i}" for i in range(500))
    chunks = chunk_text(long_sentence, chunk_size=100, chunk_overlap=10)
    assert len(chunks) >= 5
    assert all(count_tokens(c) <= 100 for c in chunks)
    assert " ".join(chunks).split() == long_sentence.split()


def test_message_chunk_keeps_speaker_time_and_id():
    msg = Message(
        id="D1:3", speaker="Ann", text="I moved to Lyon", timestamp=datetime(2023, 5, 8, 13, 56)
    )
    draft = message_chunk(msg)
    assert draft.text == "[2023-05-08 13:56] Ann: I moved to Lyon"
    assert draft.message_ids == ("D1:3",)
    assert draft.speaker == "Ann"
    assert draft.timestamp == "2023-05-08T13:56:00"
    assert "Ann" in draft.embed_text and "Lyon" in draft.lexical_text


def test_each_sentence_of_a_turn_is_embedded_with_its_speaker():
    two = message_chunk(Message(id="D1:4", speaker="Ann", text="Hi Bo! I moved to Lyon."))
    assert two.embed_sentences == ("Ann said: Hi Bo!", "Ann said: I moved to Lyon.")
    one = message_chunk(Message(id="D1:5", speaker="Bo", text="Nice, when?"))
    assert one.embed_sentences == ()  # one sentence: the turn's own vector is its


# Adversarial text costs work in proportion to its length. These inputs took the old
# patterns hours (quadratic or worse backtracking); a generous regex ``timeout`` stands
# in for a step count, so a busy machine cannot fail them.
_GENEROUS_S = 20.0


def test_a_long_run_of_sentence_marks_is_scanned_once():
    for text in ("a" + "." * 200_000 + "a", "a" + "?!" * 100_000 + "a"):
        assert list(_SENTENCE_END.finditer(text, timeout=_GENEROUS_S)) == []


def test_a_heading_line_of_hashes_or_spaces_is_scanned_once():
    for text in ("# a" + "#" * 200_000 + "b", "# a" + " \t" * 100_000 + "b"):
        assert len(list(_HEADING.finditer(text, timeout=_GENEROUS_S))) == 1


def test_runs_of_marks_still_end_sentences_where_they_did():
    assert split_sentences("Wait... What?! Yes. Dr.. Smith left.") == [
        "Wait...",
        "What?!",
        "Yes.",
        "Dr..",
        "Smith left.",
    ]
    assert split_sentences("A.. Next one") == ["A..", "Next one"]


def test_a_heading_loses_its_closing_hashes_and_spaces_only():
    assert heading_sections("# Title ## \nbody") == [("Title", "# Title ## \nbody")]
    assert heading_sections("# a ## b #\nbody")[0][0] == "a ## b"
    assert heading_sections("#   ##\nbody")[0][0] == ""


def test_a_huge_heading_labels_each_chunk_with_a_bounded_part_of_it():
    """Each chunk carries its section's heading; a heading line of 100,000 characters
    is cut to what half a chunk's budget holds, so a section costs its length once."""
    heading = "Lyon " * 20_000
    item = SourceItem(
        kind="document", name="notes", text=f"# {heading}\n\n" + "Ann moved to Lyon. " * 400
    )
    drafts = chunk_item(item, chunk_size=200, chunk_overlap=0)
    assert len(drafts) > 5
    labels = {d.lexical_text.split(": ", 1)[0] for d in drafts}
    assert all(label.startswith("notes > Lyon Lyon") for label in labels)
    assert max(map(len, labels)) <= MAX_CHARS_PER_TOKEN * 100
    assert all(d.embed_text.startswith(d.lexical_text.split(": ", 1)[0]) for d in drafts)
    short = chunk_item(SourceItem(kind="document", name="notes", text="# Lyon\n\nAnn moved."), chunk_size=200,
                       chunk_overlap=0)  # fmt: skip
    assert short[0].lexical_text == "notes > Lyon: # Lyon Ann moved."  # as before
