"""Checks on the screened training corpus (stdlib + pytest).

Run from the repo root:  python3 -m pytest training/tests/test_corpus.py -q
Builds the corpus with training/corpus/screen.py first if the build outputs are missing.
"""
import json
import os
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
CORPUS = os.path.join(HERE, "..", "corpus")
sys.path.insert(0, CORPUS)

import screen  # noqa: E402

BUILD = os.path.join(CORPUS, "build")


def _load(name):
    with open(os.path.join(BUILD, f"{name}.jsonl"), encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


@pytest.fixture(scope="module")
def splits():
    if not all(os.path.exists(os.path.join(BUILD, f)) for f in ("train.jsonl", "dev.jsonl", "report.json")):
        screen.main([])
    return _load("train"), _load("dev")


def test_schema_and_labels(splits):
    for rows in splits:
        assert rows
        for it in rows:
            assert screen.check_schema(it), it.get("id")
            assert screen.check_label(it), it.get("id")
            q = it["question"]
            assert set(it) >= {"id", "lang", "domain", "task", "difficulty", "state", "question", "answer"}
            assert it["difficulty"] in screen.DIFFS
            if q["type"] == "choice":
                assert it["answer"] in q["criteria"]
            elif q["type"] == "score":
                assert isinstance(it["answer"], int) and 0 <= it["answer"] < len(q["criteria"])
            else:
                assert isinstance(it["answer"], bool)
                assert q.get("criteria") is None or set(q["criteria"]) <= {"true", "false"}


def test_unique_ids(splits):
    ids = [it["id"] for rows in splits for it in rows]
    assert len(ids) == len(set(ids))


def test_no_task_overlap_between_train_and_dev(splits):
    train, dev = splits
    # no task (in any language) is in both splits: a held-out template is held out everywhere
    assert {i["task"] for i in train}.isdisjoint({i["task"] for i in dev})
    assert 0.04 < len(dev) / (len(train) + len(dev)) < 0.2


def test_every_other_language_holds_out_every_question_type(splits):
    train, dev = splits
    langs = {i["lang"] for i in train} - {"en"}
    assert len(langs) >= 15
    for lang in langs:
        assert {i["question"]["type"] for i in dev if i["lang"] == lang} == {"choice", "noul", "score"}, lang


def test_english_score_dev_is_large_enough_to_measure_calibration(splits):
    # with ~120 rows a perfectly calibrated model measures ECE ~0.08 (calibrate.ece_floor): too few for a 0.05 target
    train, dev = splits
    score_dev = [i for i in dev if i["lang"] == "en" and i["question"]["type"] == "score"]
    score_train = [i for i in train if i["lang"] == "en" and i["question"]["type"] == "score"]
    assert len(score_dev) >= 500
    assert 0.15 < len(score_dev) / (len(score_dev) + len(score_train)) < 0.4


def test_english_volume(splits):
    en = [i for rows in splits for i in rows if i["lang"] == "en"]
    assert len(en) >= 8000
    assert len({i["task"] for i in en}) >= 300
    noul = [i for i in en if i["question"]["type"] == "noul"]
    frac_true = sum(i["answer"] for i in noul) / len(noul)
    assert 0.4 < frac_true < 0.6


def test_report(splits):
    with open(os.path.join(BUILD, "report.json"), encoding="utf-8") as f:
        rep = json.load(f)
    assert set(screen.REASONS) <= set(rep["drops"])
    assert rep["kept_total"] == len(splits[0]) + len(splits[1])


JABR_TOML = '''
[[task]]
name = "planted"
[task.question]
type = "noul"
instructions = "Does the courier note mention that the blue gate was left open overnight by the tenant?"
[[task.cases]]
state = "The parcel was left behind the blue gate on Orchard Lane because nobody answered the door at number fourteen after two rings."
answer = true
'''


def _item(state, instructions):
    return {"id": "en-x-0", "lang": "en", "domain": "t", "task": "x", "difficulty": "easy", "state": state,
            "question": {"type": "noul", "instructions": instructions, "criteria": None}, "answer": True}


def test_leak_checker_catches_planted_overlap(tmp_path):
    p = tmp_path / "v1.toml"
    p.write_text(JABR_TOML, encoding="utf-8")
    lc = screen.LeakChecker.from_toml(str(p))
    # copied 8-gram inside a longer state
    planted = _item("Hi. The parcel was left behind the blue gate on Orchard Lane yesterday, please check.", "Is this about delivery?")
    assert lc.item_leaks(planted)
    # paraphrased instructions with high token overlap
    assert lc.item_leaks(_item("unrelated text here", "Does the courier note mention that the blue gate was left open overnight?"))
    # clean item passes
    assert not lc.item_leaks(_item("My invoice shows the wrong VAT number, please reissue it.", "Is this a billing question?"))
    # and the screen drops it for that reason
    kept, dropped, _, _ = screen.screen([("t", planted)], lc)
    assert not kept and dropped["jabr_leak"] == 1


def test_cue_conflict_flags_mislabelled_and_keeps_explicit_decoy():
    crit = {"billing": "Charges, invoices, refunds", "account_access": "Login, password or two-factor problems"}
    bad = {"id": "en-y-0", "lang": "en", "domain": "t", "task": "y", "difficulty": "easy",
           "state": "I can't log in, the password reset link never arrives and I'm locked out.",
           "question": {"type": "choice", "instructions": "Which team?", "criteria": crit}, "answer": "billing"}
    assert screen.cue_conflict(bad)
    decoy = dict(bad, difficulty="decoy", answer="billing",
                 state="I can log in fine and my password works, so this is not a login problem: I was charged twice and want a refund.")
    assert not screen.cue_conflict(decoy)


def test_handwritten_items_are_read_kept_with_their_contrast_and_split_by_task(tmp_path):
    folder = tmp_path / "handwritten"
    folder.mkdir()
    crit = {"billing": "Charges, invoices, refunds", "account_access": "Login, password or two-factor problems"}
    state = ("Last week I couldn't log in and the password reset link never arrived, I was locked out; "
             "support fixed that on Monday. Today's problem: I was charged twice for March.")
    rows = [{"id": f"hw-{i}", "lang": lang, "domain": "support-thread", "task": f"team-g{i}", "state": f"{state} Ticket {i}.",
             "question": {"type": "choice", "instructions": "Which team?", "criteria": crit},
             "answer": "billing"} for i, lang in enumerate(["en", "fr"])]
    noul = {"id": "hw-2", "lang": "en", "domain": "support-thread", "task": "refund-g0", "state": state,
            "question": {"type": "noul", "instructions": "Is the customer locked out now?"}, "answer": False}
    (folder / "a.jsonl").write_text("\n".join(json.dumps(r) for r in rows + [noul]) + "\n")
    items = screen.load_raw([str(folder / "a.jsonl")])
    assert [it["difficulty"] for _, it in items] == ["handwritten"] * 3
    flipped = dict(items[2][1], id="hw-3", state=state.replace("Last week", "Since last week"), answer=True)
    kept, dropped, _, _ = screen.screen(items + [("a", flipped)], screen.LeakChecker([]))
    # a noul without criteria, as the brief writes them; its contrastive twin (one detail changed) too
    assert len(kept) == 4 and not dropped
    # cues for account access beside the detail that decides: flagged in a generated item, kept when written by hand
    assert screen.cue_conflict(dict(items[0][1], difficulty="easy"))
    assert not screen.cue_conflict(items[0][1])
    # every language splits by task, as English does
    for _, it in items[:2]:
        assert screen.split_of(it, ml_dev=set()) == screen.task_split(it["task"], "choice")
