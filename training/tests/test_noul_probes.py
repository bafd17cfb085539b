"""The shortcut probes of training/noul_probes.py (issue 19): lexical overlap and the AUC they are ranked by."""
from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "training"))

from noul_probes import chunks, handwritten_nouls, lexical_scores, overlap, roc_auc  # noqa: E402


def test_roc_auc_ranks_and_counts_ties_as_half():
    assert roc_auc([1, 1, 0, 0], [0.9, 0.8, 0.2, 0.1]) == 1.0
    assert roc_auc([1, 1, 0, 0], [0.1, 0.2, 0.8, 0.9]) == 0.0
    assert roc_auc([1, 0], [0.5, 0.5]) == 0.5
    assert roc_auc([1, 1, 0], [0.9, 0.4, 0.5]) == 0.5


def test_overlap_sees_a_changed_number_and_ignores_stop_words():
    state = "Battery: up to 45 minutes on eco mode, 12 minutes on boost. Weight: 2.6 kg."
    assert overlap("The vacuum weighs 2.6 kg.", state, numbers_only=True) == 1.0
    assert overlap("The vacuum weighs 3.1 kg.", state, numbers_only=True) == 0.0
    assert overlap("It is on the turbo mode", state) == 0.5              # "it is on the" are stop words
    assert overlap("Is it?", state) == 1.0                               # nothing to check


def test_chunks_split_sentences_and_json_elements():
    assert chunks("First one. Second one!\nThird line") == ["First one.", "Second one!", "Third line"]
    assert len(chunks('[{"a": 1},{"b": 2}]')) == 2


def test_only_hand_written_nouls_of_the_language_are_probed():
    items = [
        {"difficulty": "handwritten", "lang": "en", "question": {"type": "noul", "instructions": "x"}, "state": "x", "answer": True},
        {"difficulty": "easy", "lang": "en", "question": {"type": "noul", "instructions": "x"}, "state": "x", "answer": True},
        {"difficulty": "handwritten", "lang": "fr", "question": {"type": "noul", "instructions": "x"}, "state": "x", "answer": True},
        {"difficulty": "handwritten", "lang": "en", "question": {"type": "choice", "instructions": "x"}, "state": "x", "answer": "a"},
    ]
    rows = handwritten_nouls(items)
    assert len(rows) == 1
    assert lexical_scores(rows) == {"content_overlap": [1.0], "number_overlap": [1.0]}
