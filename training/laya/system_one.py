"""laya's own `Agent.system_one` for a list of request bodies: what a Laya server answers, or refuses.

    python training/laya/system_one.py --model LAYA_DIR --requests BODIES.json --out ANSWERS.json

BODIES.json: a JSON array of request body TEXTS (strings), each parsed here by Python's json as a Laya
server parses it (so 3.0 stays a float, 12345678901234567890 an exact int). For each body, either

    {"answer": TEXT, "choices": {qid: TEXT}, "processed_tokens": N}

where TEXT is the answer as laya's server writes it (Starlette's JSONResponse: `json.dumps` with
`ensure_ascii=False`, `allow_nan=False`, compact separators), `choices` each choice answer's `choice`
value as JSON text (a number label keeps Python's form), and `processed_tokens` the rows × longest
sequence of the batch laya's forward ran (`collate_items` pads to the longest row); or

    {"refused": MESSAGE}

when `system_one` raises ValueError (its server answers 422 with that message).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import warnings

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")


def server_json(value) -> str:
    """starlette.responses.JSONResponse.render, as text."""
    return json.dumps(value, ensure_ascii=False, allow_nan=False, indent=None, separators=(",", ":"))


def main() -> int:
    import laya
    from laya.common import collate_items

    ap = argparse.ArgumentParser()
    ap.add_argument("--model", required=True)
    ap.add_argument("--requests", required=True)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        agent = laya.load(a.model, device="cpu")
    with open(a.requests, encoding="utf-8") as f:
        bodies = [json.loads(text) for text in json.load(f)]
    out = []
    for body in bodies:
        state, questions = body["state"], body["questions"]
        try:
            result = agent.system_one(state, questions)
        except ValueError as e:
            out.append({"refused": str(e)})
            continue
        # the batch system_one ran: its questions' rows, padded to the longest
        ids = list(questions.keys())
        internal = {qid: agent._to_internal(questions[qid]) for qid in ids}
        shape = collate_items([agent._encode_state(state, ids, internal)], agent.tok.pad_token_id)["input_ids"].shape
        choices = {qid: server_json(ans["choice"]) for qid, ans in result["answers"].items() if ans["type"] == "choice"}
        out.append({"answer": server_json(result), "choices": choices, "processed_tokens": int(shape[0] * shape[1])})
    with open(a.out, "w", encoding="utf-8") as f:
        json.dump(out, f)
    return 0


if __name__ == "__main__":
    sys.exit(main())
