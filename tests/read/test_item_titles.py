"""Only real titles feed the title signal: a memory given no title is named by its
opening words (a conversation by its message ids), and that name is never looked up."""

from __future__ import annotations

from recall_engine import Conversation, Document, Message
from recall_engine.core.item_names import conversation_name, is_titled, opening_words
from recall_engine.read.store_reader import StoreReader
from recall_engine.read.titles import named_in, title_index, title_key

LONG = "Grace Hopper wrote the first compiler for the Navy in 1952 and kept a nanosecond."


def test_a_name_made_from_the_text_is_no_title() -> None:
    made = opening_words(LONG)
    assert made == "Grace Hopper wrote the first compiler for the..."
    assert not is_titled(made, LONG)
    assert not is_titled(made, LONG[:60])  # a first chunk shorter than the item
    assert not is_titled("Ada moved to Rome", "Ada moved to Rome")
    # A title that only begins the text is a title (encyclopedia pages open with theirs).
    assert is_titled("Grace Hopper", LONG)
    assert is_titled("Arthur's Magazine", "Arthur's Magazine (1844-1846) was a periodical.")
    assert not is_titled(conversation_name("m0", "m9"), "[..] ann: hi", ["m0", "m3", "m9"])
    assert is_titled("standup", "[..] ann: hi", ["m0", "m9"])


async def test_a_query_repeating_a_memorys_first_words_gets_no_title_bonus(engine) -> None:
    await engine.remember(
        [
            LONG,
            Document(text="She retired as a rear admiral.", title="Grace Hopper wrote the code"),
            Document(text="A computer scientist of the US Navy.", title="Grace Hopper"),
            Conversation(messages=[Message(speaker="ann", text="Grace Hopper wrote it")]),
        ],
        dataset_name="notes",
    )
    store = engine.store()
    names = set(title_index(store))
    assert names == {title_key("Grace Hopper wrote the code"), title_key("Grace Hopper")}
    ids = await engine.list_datasets()
    read = StoreReader(store, [ids["notes"]])
    found = await read.titled_chunks("Grace Hopper wrote the first compiler for the Navy", 10)
    # The titled items are found by their titles; the untitled memory (whose name
    # is every word of the query's start) and the conversation are not.
    assert sorted(h.document_name for h in found) == ["Grace Hopper"]
    found = await read.titled_chunks("What did Grace Hopper wrote the code say?", 10)
    assert [h.document_name for h in found] == ["Grace Hopper wrote the code", "Grace Hopper"]


def test_a_title_inside_a_longer_name_is_not_named() -> None:
    index = {title_key(t): [t] for t in ("United (album)", "Ulm", "York", "Blue Notes (band)")}

    def named(text: str) -> list[str]:
        return [title for title, _ in named_in(text, index)]

    assert named("She was born in the United States.") == []
    assert named("He moved to New York last year.") == []
    assert named("Blue Notes Live is an album.") == []
    assert named("He said: Ulm Minster is tall.") == []
    # the name ends there: a comma, a sentence's first word, lowercase words around it
    assert named("In Ulm, Germany, and later in York.") == ["ulm", "york"]
    assert named("York is old. United we stand.") == ["york", "united"]
    assert named("one of the Blue Notes songs") == ["blue notes"]


async def test_the_title_index_follows_writes_as_if_made_whole(engine, monkeypatch) -> None:
    """Items added one write at a time (titled, untitled, a title shared by two items, a
    conversation) extend the index made before; a forget makes it whole again. Either
    way it equals an index made whole."""
    from recall_engine.read import titles

    made: list[int] = []
    build = titles._build
    monkeypatch.setattr(titles, "_build", lambda store: made.append(1) or build(store))

    def same(index, whole) -> None:
        assert dict(index) == dict(whole) and index.starts == whole.starts
        assert index.named == whole.named

    chat = Conversation(messages=[Message(speaker="bob", text="Hi Ann, how was Ulm?")])
    await engine.remember(chat, dataset_name="d")
    store = engine.store()
    assert not title_index(store)
    again = Conversation(messages=[Message(speaker="ann", text="Cold, but the Danube was nice.")])
    await engine.remember(again, dataset_name="d")
    assert not title_index(store) and len(made) == 1  # an empty index is extended too
    first = await engine.remember(Document(text=LONG, title="Grace Hopper"), dataset_name="d")
    same(title_index(store), build(store))
    writes = [
        Document(text="Ulm is a city on the Danube in Germany.", title="Ulm"),
        LONG.replace("Grace", "Anna"),  # no title of its own
        Document(text="Ulm (band) played in Berlin and Vienna.", title="Ulm (band)"),
        Conversation(messages=[Message(speaker="ann", text="Ulm was lovely in May.")]),
    ]
    for memory in writes:
        await engine.remember(memory, dataset_name="d")
        same(title_index(store), build(store))
    assert len(made) == 1  # made whole once, then only extended
    assert title_index(store)["ulm"] and len(title_index(store)["ulm"]) == 2
    await engine.forget(data_id=first.data_ids[0])
    same(title_index(store), build(store))
    assert len(made) == 2 and "grace hopper" not in title_index(store)
