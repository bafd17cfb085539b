#!/usr/bin/env python3
"""Contrastive detail checks made from the training states: the same text, one detail bound wrongly.

    python3 training/corpus/details.py            # build/train.jsonl -> build/details.jsonl

Issue 19's hand-written nouls turn on one detail of the state (which appointment was a no-show, the
minutes on boost rather than on eco), and nothing short of checking the statement against the text
scores them (``training/noul_probes.py``: overlap and topic signals all at chance). This file teaches
that check on the training split's own states (never the dev split or the evaluation set), in pairs:

- JSON states: a leaf (``"outcome": "no_show"`` inside the appointment dated 2025-10-08) stated with its
  own value (true) and with the value the same key has elsewhere in the state (false): the right words,
  the right numbers, the wrong binding — the contrast the writers used;
- text states: a sentence of the state repeated (true) and the same sentence with one of its numbers
  replaced by another number of the state (false).

Statements are asked as claims or as yes/no questions. Every pair shares its state, so the answer never
follows from the text alone. Items carry ``source`` = the state's item id. Standard library only.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import re

ROOT = os.path.dirname(os.path.abspath(__file__))
BUILD = os.path.join(ROOT, "build")
SHORT = 40          # leaves and anchors longer than this are prose, not details
NUMBER = re.compile(r"(?<![\w.:/\-])\d[\d,]*(?:\.\d+)?(?![\w:/\-]|\.\d)")  # not a piece of a time, date or id
SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")
ANCHOR_KEYS = ("id", "name", "date", "ts", "time", "timestamp", "step", "tool", "sku", "code", "label", "role", "user")


def _rng(*parts) -> int:
    return int.from_bytes(hashlib.sha256("\x1f".join(map(str, parts)).encode()).digest()[:8], "big")


def words(key: str) -> str:
    return re.sub(r"[_\-.]+", " ", str(key)).strip()


def scalar(v) -> str | None:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return json.dumps(v)
    if isinstance(v, str) and 0 < len(v) <= SHORT and "\n" not in v:
        return v
    return None


def anchor(obj: dict, skip: str, siblings: list) -> tuple[str, str] | None:
    """The field that names an object in a list (its id, date, name …) and no other entry shares, to say
    which entry is meant."""
    for k in list(ANCHOR_KEYS) + list(obj):
        if k == skip or k not in obj or isinstance(obj[k], bool) or scalar(obj[k]) is None:
            continue
        if sum(isinstance(o, dict) and o.get(k) == obj[k] for o in siblings) == 1:
            return k, scalar(obj[k])
    return None


def leaves(state, path=(), owner=None, siblings=()):
    """(key, value text, description of where it is, value) for every short scalar under a key."""
    if isinstance(state, dict):
        for k, v in state.items():
            text = scalar(v)
            if text is not None and not isinstance(k, int):
                where = None
                if owner is not None:
                    a = anchor(owner, k, siblings)
                    if a is None:
                        continue          # an entry of a list with nothing to name it by: ambiguous
                    where = f"the {words(path[-2]) if len(path) > 1 else 'entry'} with {words(a[0])} {a[1]}"
                yield k, text, where, v
            elif isinstance(v, (dict, list)):
                yield from leaves(v, path + (k,), None)
    elif isinstance(state, list):
        for i, v in enumerate(state):
            if isinstance(v, dict):
                yield from leaves(v, path + (i,), v, state)


def claim(key: str, value: str, where: str | None, ask: bool) -> str:
    subject = f"the {words(key)}" + (f" of {where}" if where else "")
    value = value.rstrip(".")
    return f"Is {subject} {value}?" if ask else f"{subject[0].upper()}{subject[1:]} is {value}."


def json_pairs(item: dict, per_state: int):
    found = list(leaves(item["state"]))
    by_key: dict[str, set[str]] = {}
    for k, text, _, raw in found:
        by_key.setdefault(k, set()).add(text)
    counts: dict[tuple, int] = {}
    for k, text, where, _ in found:
        counts[(k, text, where)] = counts.get((k, text, where), 0) + 1
    made = 0
    for k, text, where, raw in sorted(found, key=lambda f: _rng(item["id"], f[0], f[1], f[2])):
        others = sorted(by_key[k] - {text})
        if not others or counts[(k, text, where)] > 1:
            continue                      # no wrong value to bind, or the statement would be ambiguous
        wrong = others[_rng(item["id"], k, text) % len(others)]
        ask = _rng(item["id"], k, "ask") % 3 == 0
        yield claim(k, text, where, ask), True
        yield claim(k, wrong, where, ask), False
        made += 1
        if made == per_state:
            return


def text_pairs(item: dict, per_state: int):
    state = item["state"]
    if not isinstance(state, str):
        return
    numbers = sorted({m.group() for m in NUMBER.finditer(state)})
    if len(numbers) < 2:
        return
    made = 0
    sentences = [s.strip() for s in SENTENCE.split(state) if 20 <= len(s.strip()) <= 240]
    for s in sorted(sentences, key=lambda x: _rng(item["id"], x)):
        inside = [m for m in NUMBER.finditer(s)]
        if not inside or state.count(s) > 1:
            continue
        m = inside[_rng(item["id"], s) % len(inside)]
        others = [n for n in numbers if n != m.group()]
        wrong = others[_rng(item["id"], s, "n") % len(others)]
        changed = s[:m.start()] + wrong + s[m.end():]
        if changed in state:
            continue
        yield s, True
        yield changed, False
        made += 1
        if made == per_state:
            return


def items(rows, per_state: int):
    seen = set()
    for it in rows:
        if it["lang"] != "en":
            continue
        key = json.dumps(it["state"], sort_keys=True, ensure_ascii=False)
        if key in seen:
            continue
        seen.add(key)
        pairs = json_pairs(it, per_state) if not isinstance(it["state"], str) else text_pairs(it, per_state)
        for n, (statement, answer) in enumerate(pairs):
            yield {"id": f"det-{it['id']}-{n}", "lang": "en", "domain": it["domain"], "task": "details",
                   "difficulty": "easy", "state": it["state"],
                   "question": {"type": "noul", "instructions": statement}, "answer": answer,
                   "source": f"training/corpus/details.py from {it['id']}"}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--train", default=os.path.join(BUILD, "train.jsonl"))
    ap.add_argument("--out", default=os.path.join(BUILD, "details.jsonl"))
    ap.add_argument("--per-state", type=int, default=2, help="contrastive pairs per state")
    args = ap.parse_args(argv)
    with open(args.train, encoding="utf-8") as f:
        rows = [json.loads(line) for line in f]
    n = true = 0
    with open(args.out, "w", encoding="utf-8") as out:
        for it in items(rows, args.per_state):
            out.write(json.dumps(it, ensure_ascii=False) + "\n")
            n += 1
            true += it["answer"]
    print(json.dumps({"out": args.out, "items": n, "true": true}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
