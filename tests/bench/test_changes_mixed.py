"""bench._changes_mixed: the conversations where one change must not end another."""

from __future__ import annotations

from bench._changes_mixed import generate_mixed


def test_generation_is_reproducible_and_ids_unique():
    first, again = generate_mixed(3, seed=5), generate_mixed(3, seed=5)
    assert [c.id for c in first] == [c.id for c in again]
    assert [m.text for m in first[0].conversation.messages] == [
        m.text for m in again[0].conversation.messages
    ]
    assert len({c.id for c in first}) == len(first) == 9


def test_relevant_turns_exist_and_as_of_falls_inside_its_period():
    for case in generate_mixed(4, seed=7):
        ids = {m.id for m in case.conversation.messages}
        assert set(case.message_period) <= ids
        for q in case.questions:
            if q.as_of is None:
                continue
            assert case.starts[q.period] <= q.as_of
            if q.period + 1 < len(case.starts):
                assert q.as_of < case.starts[q.period + 1]


def test_the_pet_end_names_only_the_species():
    for case in generate_mixed(4, seed=9):
        if case.aspect != "pet-species":
            continue
        end = next(m.text for m in case.conversation.messages if m.id == "S2:2")
        species = case.values[0].split()[1]
        assert species in end
        assert case.values[0].split(" named ")[-1] not in end
        present = next(q for q in case.questions if q.kind == "present")
        assert present.answers == (case.values[1].split(" named ")[-1],)


def test_each_preference_case_asks_about_its_own_kind_after_the_other_switch():
    cases = {c.id: c for c in generate_mixed(2, seed=11)}
    drink, phone = cases["mix-00-drink"], cases["mix-00-phone"]
    assert drink.conversation.messages[0].text == phone.conversation.messages[0].text
    # the phone's period 0 question falls after the drink's switch
    held = next(q for q in phone.questions if q.kind == "as_of")
    assert held.as_of is not None and held.as_of > drink.starts[1]
