"""Generate the English raw corpus: python3 training/corpus/en/generate.py  ->  training/corpus/en/raw.jsonl

Deterministic: fixed seed, families processed in a fixed order, one Random per task (seeded from
the task id) so editing one family does not reshuffle the others.
"""
from __future__ import annotations

import collections
import importlib
import os
import random
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from common import build_tasks, gen_item, dump, hash_int  # noqa: E402

SEED = 20261122
MODULES = ["support", "moderation", "security", "finance", "engineering", "rag", "triage", "business",
           "agents", "misc", "rules", "quality", "claims_support", "claims_ops", "claims_docs", "levels"]


def all_families():
    fams = []
    for m in MODULES:
        try:
            mod = importlib.import_module(m)
        except ModuleNotFoundError as e:
            if e.name == m:
                continue
            raise
        fams.extend(mod.FAMILIES)
    import more_content
    more_content.apply(fams)
    more_content.apply_extras(fams)
    more_content.apply_details(fams)
    return fams


def main(out=os.path.join(HERE, "raw.jsonl")):
    items = []
    ids = set()
    for fam in all_families():
        frng = random.Random(SEED + hash_int(fam.id))
        tasks = build_tasks(frng, fam)
        for t in tasks:
            assert t.id not in ids, t.id
            ids.add(t.id)
            rng = random.Random(SEED + hash_int(t.id))
            used: set = set()
            n = 0
            truth = collections.Counter()
            fails = 0
            for _ in range(fam.items_per_task * 3):
                if n >= fam.items_per_task or fails >= 8:
                    break
                want = (truth[True] <= truth[False]) if t.qtype == "noul" else None
                it = gen_item(rng, t, n, used, want)
                if it is None:
                    fails += 1
                    continue
                fails = 0
                if t.qtype == "noul":
                    truth[it["answer"]] += 1
                items.append(it)
                n += 1
    dump(items, out)
    c = collections.Counter((i["question"]["type"]) for i in items)
    d = collections.Counter(i["difficulty"] for i in items)
    print(f"wrote {len(items)} items, {len(ids)} tasks -> {out}")
    print(dict(c), dict(d))
    return items


if __name__ == "__main__":
    main()
