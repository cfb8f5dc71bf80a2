"""Offline summaries are the lead of an item, capped, and never invented."""

from recall_engine.graph.summaries import MAX_CHARS, extractive_summary


def test_document_summary_is_its_leading_sentences() -> None:
    text = "Dr. Ada Lovelace wrote notes. They describe an algorithm. It ran later. Much later."
    assert extractive_summary(text) == (
        "Dr. Ada Lovelace wrote notes. They describe an algorithm. It ran later."
    )


def test_conversation_summary_names_speakers_and_first_turns() -> None:
    turns = [("Ann", "I moved to  Lyon"), ("Bob", "Nice!"), ("Ann", "Yes"), ("Bob", "Bye")]
    assert extractive_summary(turns=turns) == (
        "Conversation between Ann and Bob (4 messages). Ann: I moved to Lyon Bob: Nice! Ann: Yes"
    )


def test_summaries_are_capped_and_odd_text_is_fine() -> None:
    long = " ".join(["word"] * 5000)
    capped = extractive_summary(long)
    assert len(capped) <= MAX_CHARS and capped.endswith("…")
    assert extractive_summary("") == ""
    assert extractive_summary("🙂 日本語のテキスト。") == "🙂 日本語のテキスト。"
