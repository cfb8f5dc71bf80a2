"""The list layout that keeps a ranking's head independent of top_k."""

from retrievers.layout import after_lead, alternate, extend_tail


def test_after_lead_alternates_the_other_lanes_with_the_passages_after_the_first():
    passages = ["p1", "p2", "p3", "p4"]
    assert after_lead(passages, ["e1", "f1"], ahead=2) == ["p1", "p2", "p3", "e1", "p4", "f1"]
    assert after_lead(passages, ["e1"], ahead=2) == ["p1", "p2", "p3", "e1", "p4"]
    assert after_lead(["p1"], ["e1", "f1"], ahead=2) == ["p1", "e1", "f1"]
    assert after_lead(["p1", "p2"], ["e1"], ahead=0) == ["p1", "e1", "p2"]


def test_alternate_interleaves_and_lets_a_longer_lane_finish():
    assert alternate(["e1", "e2", "e3"], ["f1"]) == ["e1", "f1", "e2", "e3"]
    assert alternate([], ["f1", "f2"]) == ["f1", "f2"]
    assert alternate() == []


def test_extend_tail_keeps_the_head_and_appends_only_what_is_new():
    head = [("a", 1.0), ("b", 0.5)]
    deeper = [("b", 0.9), ("c", 0.8), ("a", 0.7), ("d", 0.1)]
    out = extend_tail(head, deeper, key=lambda item: item[0])
    assert out == [("a", 1.0), ("b", 0.5), ("c", 0.8), ("d", 0.1)]
