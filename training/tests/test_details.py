"""training/corpus/details.py (issue 19): contrastive detail checks, each pair on one state with opposite answers."""
from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "training" / "corpus"))

from details import items, json_pairs, leaves, text_pairs  # noqa: E402

APPOINTMENTS = {"patient_ref": "P-11284", "appointments": [
    {"date": "2025-05-02", "outcome": "attended"},
    {"date": "2025-10-08", "outcome": "no_show"},
    {"date": "2026-01-15", "outcome": "attended"},
]}


def test_a_leaf_in_a_list_is_named_by_a_field_no_other_entry_shares():
    found = {(k, text, where) for k, text, where, _ in leaves(APPOINTMENTS)}
    assert ("outcome", "no_show", "the appointments with date 2025-10-08") in found
    # "outcome attended" names two entries: it may not serve as an anchor, so those two dates are left out
    assert not any(where and "attended" in where for _, _, where, _ in leaves(APPOINTMENTS))
    assert ("date", "2025-10-08", "the appointments with outcome no_show") in found
    assert not any(k == "date" and text != "2025-10-08" for k, text, _ in found)


def test_json_pairs_bind_a_value_of_the_same_key_from_elsewhere():
    pairs = list(json_pairs({"id": "x", "state": APPOINTMENTS}, per_state=5))
    assert pairs and len(pairs) % 2 == 0
    for (true, a), (false, b) in zip(pairs[::2], pairs[1::2]):
        assert a is True and b is False and true != false
    statements = {s for s, _ in pairs}
    assert "The outcome of the appointments with date 2025-10-08 is no_show." in statements \
        or "Is the outcome of the appointments with date 2025-10-08 no_show?" in statements


def test_text_pairs_swap_one_number_for_another_of_the_state():
    state = "The vacuum runs 45 minutes on eco mode. On boost it runs 12 minutes. It weighs 2.6 kg."
    pairs = list(text_pairs({"id": "t", "state": state}, per_state=3))
    assert pairs
    for (true, a), (false, b) in zip(pairs[::2], pairs[1::2]):
        assert a and not b and true in state and false not in state
        assert len(true.split()) == len(false.split())       # one number changed, nothing else


def test_items_are_english_unique_states_with_balanced_answers():
    rows = [{"id": "a", "lang": "en", "domain": "misc", "state": APPOINTMENTS},
            {"id": "b", "lang": "en", "domain": "misc", "state": APPOINTMENTS},       # same state: skipped
            {"id": "c", "lang": "fr", "domain": "misc", "state": "Il a payé 40 euros le 3 mai, puis 12 euros."}]
    out = list(items(rows, per_state=2))
    assert out and all(it["id"].startswith("det-a-") for it in out)
    assert sum(it["answer"] for it in out) * 2 == len(out)
    assert all(it["question"]["type"] == "noul" and it["state"] == APPOINTMENTS for it in out)
