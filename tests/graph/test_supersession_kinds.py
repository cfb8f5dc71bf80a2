"""Kinds of value in one family: a switch replaces only values of its own kind, an
end that names only a species ends the one held pet of that species."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime

import pytest

from recall_engine.core.facts import Statement, Validity, kind_of, timeline


def s(rid: str, target: str, when: str, kind: str | None = None, *, ends: bool = False):
    return Statement(rid, target, f"c-{rid}", datetime.fromisoformat(when), ends=ends, kind=kind)


def at(when: str) -> datetime:
    return datetime.fromisoformat(when)


@pytest.mark.parametrize(
    ("predicate", "kind"),
    [
        ("prefers_phone", "phone"),
        ("prefers", None),
        ("has_pet_guinea_pig", "guinea_pig"),
        ("ended_pet_dog", "dog"),
        ("ended_preference", None),
        ("favourite_food", None),
        ("lives_in", None),
    ],
)
def test_kind_of_reads_the_suffix_of_kinded_predicates(predicate, kind):
    assert kind_of(predicate) == kind


def test_a_switch_of_one_kind_leaves_another_kind_current():
    out = timeline(
        [
            s("tea", "T", "2023-01-05", "drink"),
            s("pixel", "P", "2023-06-01", "phone"),
            s("coffee", "C", "2024-01-05", "drink"),
        ]
    )
    assert out["pixel"] == out["coffee"] == Validity()
    assert out["tea"] == Validity(at("2024-01-05"), "coffee", "c-coffee")


def test_a_switch_of_the_same_kind_replaces():
    out = timeline(
        [s("pixel", "P", "2023-06-01", "phone"), s("iphone", "I", "2024-01-05", "phone")]
    )
    assert out["pixel"] == Validity(at("2024-01-05"), "iphone", "c-iphone")
    assert out["iphone"] == Validity()


def test_a_switch_from_a_named_value_takes_its_kind_and_replaces_only_it():
    # "I switched my phone to a Pixel", "I switched to green tea", then
    # "I switched from the Pixel to an iPhone": the iPhone is a phone, the tea stays
    out = timeline(
        [
            s("pixel", "P", "2023-06-01", "phone"),
            s("tea", "T", "2023-07-01"),
            s("from", "P", "2024-01-05", ends=True),
            s("iphone", "I", "2024-01-05"),
            s("android", "A", "2024-05-05", "phone"),
        ]
    )
    assert out["tea"] == Validity()
    assert out["pixel"].valid_until == at("2024-01-05")
    assert out["iphone"] == Validity(at("2024-05-05"), "android", "c-android")


def test_values_of_no_kind_replace_each_other_only():
    out = timeline(
        [
            s("pixel", "P", "2023-06-01", "phone"),
            s("tea", "T", "2023-07-01"),
            s("mate", "M", "2024-01-01"),
        ]
    )
    assert out["pixel"] == out["mate"] == Validity()
    assert out["tea"].superseded_by == "mate"


def pets(*kinds: str | None) -> list[Statement]:
    return [s(f"pet{i}", f"P{i}", f"2023-0{i + 1}-01", kind) for i, kind in enumerate(kinds)]


def gone(kind: str) -> Statement:
    return s("gone", kind, "2024-05-01", kind, ends=True)


def test_an_end_naming_a_species_ends_the_one_pet_of_that_species():
    out = timeline([*pets("dog", "cat"), gone("dog")], multi_valued=True)
    assert out["pet0"] == Validity(at("2024-05-01"), "gone", "c-gone")
    assert out["pet1"] == Validity()


def test_an_end_never_ends_a_pet_of_another_species():
    out = timeline([*pets("cat"), gone("dog")], multi_valued=True)
    assert out["pet0"] == Validity()


def test_an_end_with_two_pets_of_that_species_ends_neither():
    out = timeline([*pets("dog", "dog", "cat"), gone("dog")], multi_valued=True)
    assert {out[f"pet{i}"] for i in range(3)} == {Validity()}


def test_the_only_pet_of_unknown_species_is_the_one_ended():
    # "a beagle named Biscuit" (no species known) and a cat: "I no longer have a dog"
    out = timeline([*pets(None, "cat"), gone("dog")], multi_valued=True)
    assert out["pet0"].valid_until == at("2024-05-01")
    assert out["pet1"] == Validity()
    out = timeline([*pets(None, None), gone("dog")], multi_valued=True)
    assert {out["pet0"], out["pet1"]} == {Validity()}  # which one is not said


def test_an_end_of_any_pet_ends_the_only_pet_and_not_one_of_several():
    out = timeline([*pets("cat"), gone("pet")], multi_valued=True)
    assert out["pet0"].valid_until == at("2024-05-01")
    out = timeline([*pets("cat", "dog"), gone("pet")], multi_valued=True)
    assert {out["pet0"], out["pet1"]} == {Validity()}


def test_a_pet_ended_by_name_is_not_ended_again_by_species():
    held = pets("dog", "dog")
    named = replace(s("died", "P0", "2024-01-01", ends=True))
    out = timeline([*held, named, gone("dog")], multi_valued=True)
    assert out["pet0"].valid_until == at("2024-01-01")
    assert out["pet1"] == Validity(at("2024-05-01"), "gone", "c-gone")
