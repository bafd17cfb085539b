"""laya's own answers for a list of requests, unrounded: the reference the import tests compare against.

    python training/laya/reference.py --model LAYA_DIR --requests REQUESTS.json --out ANSWERS.json

REQUESTS.json: a JSON array of System One requests `{"state": ..., "questions": {id: {type, instructions,
criteria}}}`, parsed here by Python's json (key order and number types as a Python server sees them).
For every request and question: the probabilities in option order (choice: criteria order; score: levels;
noul: [false, true]) from laya.Agent's own path — `_to_internal`, `_encode_state` (laya.common.build_sequence),
`collate_items`, `_forward` (the PyTorch DecisionModel) and `_decode_answers`' temperature and softmax,
without its 4-decimal rounding — and the token ids laya built, so a mismatch can be traced to the text; `head_cut` says whether laya cut
the question (an option past 48 tokens, the head past head_max_len), which the engine never does.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import warnings

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")


def head_cut(agent, q) -> bool:
    """Whether laya.common.build_head cut this question: an option past 48 tokens, or the head past head_max_len."""
    from laya.common import encode_text, render_options

    tok, mask = agent.tok, agent.tok.mask_token
    budget = agent.cfg.get("head_max_len", 192)
    opts = [1 + len(encode_text(tok, " " + o.replace(mask, " "), add_special_tokens=False)["input_ids"]) for o in render_options(q)]
    if any(n > 49 for n in opts):
        return True
    head = len(encode_text(tok, "%s question: %s" % (q["t"], str(q["ins"]).replace(mask, " ")), add_special_tokens=False)["input_ids"])
    room = budget - sum(opts)
    return room < 16 or head > max(8, room)


def main() -> int:
    import numpy as np
    import torch
    import laya
    from laya.common import QTYPES, collate_items, temp_bucket

    ap = argparse.ArgumentParser()
    ap.add_argument("--model", required=True)
    ap.add_argument("--requests", required=True)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        agent = laya.load(a.model, device="cpu")
    with open(a.requests, encoding="utf-8") as f:
        requests = json.load(f)
    out = []
    for req in requests:
        ids = list(req["questions"].keys())
        internal = {qid: agent._to_internal(req["questions"][qid]) for qid in ids}
        items = agent._encode_state(req["state"], ids, internal)
        b = collate_items([items], agent.tok.pad_token_id)
        with torch.no_grad():
            logits, _ = agent._forward({k: v for k, v in b.items() if k not in ("meta", "label")})
        answers = {}
        for j, qid in enumerate(ids):
            k = len(items[j]["markers"])
            qt = QTYPES[internal[qid]["t"]]
            t = agent.temperature_by_options.get(temp_bucket(qt, k), agent.temperature[qt])
            z = logits[j, :k].astype(np.float64) / t
            p = np.exp(z - z.max())
            p /= p.sum()
            answers[qid] = {"probabilities": [float(v) for v in p], "ids": [int(i) for i in items[j]["ids"]],
                            "truncated": bool(items[j]["state_stats"]["truncated"]),
                            "head_cut": head_cut(agent, internal[qid])}
        out.append(answers)
    with open(a.out, "w", encoding="utf-8") as f:
        json.dump(out, f)
    return 0


if __name__ == "__main__":
    sys.exit(main())
