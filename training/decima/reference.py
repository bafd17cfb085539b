"""Decima's own answers for System One requests, unrounded (issue 22: the import tests' reference).

    python training/decima/reference.py --model DECIMA_DIR --requests requests.json --out answers.json [--runtime onnx]

requests.json: [{"state": …, "questions": {name: {type, instructions, criteria}}}, …]. Each request goes
through the package's own System One mapping (`decima.systemone.to_question`, lang "en" as its server
uses) and its PyTorch runtime (`decima.model.Decima.decide_many`, as `system_one` calls it) — or, with
`--runtime onnx` and DECIMA_DIR an ONNX export (onnx/<precision>/ of a published repository), its ONNX
runtime (`decima.runtime.DecimaOnnx.decide_many`, one thread, as its server `decima.serve` calls it) —
without the 4-decimal rounding of the wire format. Per question: the probabilities in the engine's key order
(choice labels, score levels "0".., noul [false, true] = [P(no), P(yes)]), the token ids the model read
(state, then each option in that order), and whether Decima cut the state or an option (the engine
refuses such a question instead) or refused the question (`error`).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import warnings

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", required=True)
    ap.add_argument("--requests", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--runtime", choices=["pytorch", "onnx"], default="pytorch")
    a = ap.parse_args()
    from decima.systemone import SystemOneError, to_question

    warnings.simplefilter("ignore")
    if a.runtime == "onnx":
        from decima.runtime import DecimaOnnx

        d = DecimaOnnx(a.model, threads=1)
        tok, rc = d.tok, d.cfg
        max_state, max_choice = rc["max_state_tokens"], rc["max_choice_tokens"]
        state_of = d._state                                               # the runtime's own renderings
        choices_of = lambda q: d._choice_texts(q, d._choice_key(q)[1])    # noqa: E731
    else:
        from decima.model import Decima

        d = Decima(a.model)
        tok, cfg = d.tok, d.cfg
        max_state, max_choice = cfg.max_state_tokens, cfg.max_choice_tokens
        state_of = lambda state, q: cfg.state_of(state, q.text, q.lang)    # noqa: E731
        choices_of = lambda q: cfg.choices_of(tok, q.text, q.choices, q.lang)  # noqa: E731
    out = []
    for req in json.load(open(a.requests, encoding="utf-8")):
        state = req["state"] if isinstance(req["state"], str) else json.dumps(req["state"], ensure_ascii=False)
        answers, asked = {}, []
        for name, spec in req["questions"].items():
            try:
                t, q, _ = to_question(name, spec)
            except SystemOneError as e:
                answers[name] = {"error": str(e)}
                continue
            asked.append((name, t, q))
        decisions = d.decide_many(state, [q for _, _, q in asked]) if asked else []
        for (name, t, q), dec in zip(asked, decisions):
            p = list(dec.probs)
            full = [tok(x)["input_ids"] for x in choices_of(q)]
            s_ids = tok(state_of(state, q))["input_ids"]
            if t == "noul":                       # the engine's keys are [false, true]: options [no, yes]
                p, full = [p[1], p[0]], [full[1], full[0]]
            ids = list(s_ids) + [i for c in full for i in c]
            cut = len(s_ids) > max_state or any(len(c) > max_choice for c in full)
            answers[name] = {"probabilities": p, "ids": ids, "cut": cut}
        out.append(answers)
    json.dump(out, open(a.out, "w", encoding="utf-8"), ensure_ascii=False)
    return 0


if __name__ == "__main__":
    sys.exit(main())
