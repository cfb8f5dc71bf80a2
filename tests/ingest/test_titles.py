"""A chunk is found by what its document is about: title and heading are embedded
and indexed with it, while the chunk text shown stays the document's own words."""

from recall_engine import Document, SearchType
from recall_engine.ingest.chunking import chunk_item, heading_sections
from recall_engine.ingest.sources import SourceItem


def test_title_and_heading_label_what_is_embedded_not_what_is_shown():
    text = "Intro.\n\n# History\nThe town was founded in 850."
    drafts = chunk_item(
        SourceItem(kind="document", name="Ulm", text=text), chunk_size=256, chunk_overlap=0
    )
    assert [d.text for d in drafts] == ["Intro.", "# History The town was founded in 850."]
    assert drafts[0].embed_text == "Ulm: Intro."
    assert drafts[1].embed_text.startswith("Ulm > History: ")
    assert drafts[1].lexical_text == drafts[1].embed_text


def test_a_name_made_of_the_opening_words_is_not_a_title():
    item = SourceItem(kind="text", name="The town was founded...", text="The town was founded.")
    (draft,) = chunk_item(item, chunk_size=256, chunk_overlap=0)
    assert draft.embed_text == draft.text == "The town was founded."


def test_heading_sections_keep_every_character():
    text = "lead\n# A\nbody a\n\n## B ##\nbody b"
    sections = heading_sections(text)
    assert [h for h, _ in sections] == [None, "A", "B"]
    assert "".join(s for _, s in sections) == text


async def test_a_chunk_is_found_by_its_page_title(engine):
    await engine.remember(
        [
            Document(text="The minster has the tallest church steeple in the world.", title="Ulm"),
            Document(text="The cathedral is a Gothic church with two spires.", title="Cologne"),
            Document(text="A river port and trade town on a large river.", title="Duisburg"),
        ],
        dataset_name="towns",
    )
    for search_type in (SearchType.CHUNKS_LEXICAL, SearchType.CHUNKS):
        results = await engine.recall("Ulm", query_type=search_type, top_k=1)
        assert results[0].metadata["document_name"] == "Ulm"
        assert "Ulm" not in results[0].text


def test_each_sentence_of_a_titled_chunk_is_embedded_with_its_title():
    item = SourceItem(
        kind="document", name="Ulm", text="The city is on the Danube. It has a minster."
    )
    (draft,) = chunk_item(item, chunk_size=256, chunk_overlap=0)
    assert draft.embed_sentences == ("Ulm: The city is on the Danube.", "Ulm: It has a minster.")
