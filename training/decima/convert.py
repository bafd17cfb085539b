"""Convert a Decima checkpoint folder (PyTorch form) into one engine graph (issue 22, the second family).

    python training/decima/convert.py --src DECIMA_DIR --out WORK_DIR [--check-rows N] [--external-data-mb M]

DECIMA_DIR is what `decima-ai` 2.4.0 saves and loads (`DecimaModel.save` / `DecimaModel.load`, and
`decima.model.Decima`, which reads the tokenizer from encoder/): decima.json, head.safetensors,
encoder/ (config.json, model.safetensors, tokenizer.json). The model is loaded by the package itself.

Decima is a late-interaction model: the state text and each option text are encoded *separately* by the
same encoder, then every option's tokens attend over the state's in a small scorer. The graph keeps the
engine's five inputs (the "marker" contract) with another row layout, `late-interaction`:

    row = <s> state text </s>  <s> option₀ text </s>  <s> option₁ text </s> …    (right-padded)
    marker_pos[k] = where option k's segment starts; the state is everything before the first marker

Inside the graph the row is cut back into its segments (the state [B, Ls] and the options [B·K, Lc],
each with positions from 0 as Decima encodes them), both go through the encoder, then Decima's scorer
(`choice_scores`), the calibration temperature of decima.json, and per question type the head Decima uses:
choose/verify scores as they are (the engine's softmax), score the cumulative-link ordinal head as
log-probabilities (`ordinal_log_probs`, with padded levels masked out). So the engine's softmax(logits)
is what `Decima` returns and the manifest's temperatures are all 1.

Writes into WORK_DIR: model.onnx (+ model.onnx.data above --external-data-mb), tokenizer.json (the
checkpoint's own) and decima_import.json (the facts the manifest is made from and the agreement check of
the graph against the package's own PyTorch scoring). Refusals: exit status 2, `refused: …` on stderr.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import sys
import warnings
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from converting import (INPUTS, Refused, batched_logits, converter_args, private_tmp, read_json, run_converter,  # noqa: E402
                        save_graph, softmax, step, write_facts)

OUTPUTS = ["logits"]
ENCODERS = ("bert", "xlm-roberta")


def load_model(src: Path):
    from decima.model import DecimaModel
    from transformers import AutoTokenizer

    for need in ("decima.json", "head.safetensors", "encoder/config.json", "encoder/tokenizer.json"):
        if not (src / need).exists():
            raise Refused(f"{src}: no {need}: not a Decima checkpoint folder in PyTorch form (decima saves decima.json, "
                          "head.safetensors, encoder/ with the tokenizer)")
    read_json(src / "decima.json", "decima.json")
    read_json(src / "encoder" / "tokenizer.json", "encoder/tokenizer.json")
    family = read_json(src / "encoder" / "config.json", "encoder/config.json").get("model_type")
    if family not in ENCODERS:
        raise Refused(f"{src}: encoder model_type {family!r} is not supported (supported: {', '.join(ENCODERS)}, "
                      "multilingual-e5's family); its graph has not been verified against decima")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = DecimaModel.load(src, "cpu").float().eval()
    tok = AutoTokenizer.from_pretrained(src / "encoder")
    for t in ("cls_token", "sep_token", "pad_token"):
        if getattr(tok, t) is None:
            raise Refused(f"{src}/encoder: the tokenizer has no {t}: the layout needs <s>, </s> and <pad>")
    return model, tok, family


def ordinal_log_probs(m, s_pad, z_pad, valid):
    """DecimaModel.ordinal_log_probs for a padded batch of score questions. Decima scores one question at a
    time, so its K is always the question's own; here padded levels get no threshold gap and no mass."""
    import torch
    import torch.nn.functional as F

    K = z_pad.shape[1]
    zm = (z_pad * valid.unsqueeze(-1)).sum(1) / valid.sum(1, keepdim=True).clamp(min=1)
    idx = torch.arange(K, dtype=s_pad.dtype)
    n_valid = valid.sum(1, keepdim=True).to(s_pad.dtype)
    expected = (F.softmax(s_pad, 1) * idx).sum(1, keepdim=True) - (n_valid - 1) / 2
    g = m.ord_g(zm).squeeze(-1) + expected.squeeze(1)
    gaps = (F.softplus(m.ord_gap(z_pad).squeeze(-1)) + 1e-3) * valid.to(s_pad.dtype)
    theta = torch.cumsum(gaps, 1)[:, :-1] - gaps.sum(1, keepdim=True) / 2
    c = g.unsqueeze(1) - theta
    sig = torch.sigmoid(c) * valid[:, 1:].to(s_pad.dtype)       # P(y > k) is 0 from the last real level on
    one = torch.ones_like(sig[:, :1]); zero = torch.zeros_like(one)
    p = torch.cat([one, sig], 1) - torch.cat([sig, zero], 1)
    logp = torch.log(p.clamp(min=1e-7)).masked_fill(~valid, float("-inf"))
    return logp - torch.logsumexp(logp, 1, keepdim=True)


def engine_module(model):
    import torch

    temperature = float(model.cfg.temperature)

    class Wrapped(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.m = model

        def forward(self, input_ids, attention_mask, marker_pos, marker_mask, qtype):
            B, T = input_ids.shape
            K = marker_pos.shape[1]
            # the state: everything before the first marker, positions from 0
            state_len = marker_pos[:, 0]
            ls = torch.arange(state_len.max())
            s_ids = input_ids.index_select(1, ls)
            s_mask = (ls[None, :] < state_len[:, None]).to(torch.long)
            # option k: from its marker to the next real marker, or to the end of the row
            row_len = attention_mask.sum(1)
            nxt = torch.cat([marker_pos[:, 1:], row_len[:, None]], 1)
            nxt_real = torch.cat([marker_mask[:, 1:], torch.zeros_like(marker_mask[:, :1])], 1)
            end = torch.where(nxt_real, nxt, row_len[:, None].expand(B, K))
            seg = torch.where(marker_mask, end - marker_pos, torch.zeros_like(marker_pos))
            lc = torch.arange(seg.max())
            at = (marker_pos[:, :, None] + lc[None, None, :]).clamp(max=T - 1)
            c_ids = torch.gather(input_ids[:, None, :].expand(B, K, T), 2, at).reshape(B * K, -1)
            # a padded marker reads one token (never an all-masked row); its score is overwritten below
            c_mask = ((lc[None, None, :] < seg[:, :, None]) | (lc[None, None, :] == 0)).to(torch.long).reshape(B * K, -1)
            hs = self.m.encode(s_ids, s_mask)
            hc = self.m.encode(c_ids, c_mask)
            owner = torch.arange(B)[:, None].expand(B, K).reshape(-1)
            s, z = self.m.choice_scores(hs, s_mask, hc, c_mask, owner)
            s = (s / temperature).reshape(B, K).masked_fill(~marker_mask, float("-inf"))
            z = z.reshape(B, K, -1) * marker_mask[:, :, None].to(z.dtype)
            ordinal = ordinal_log_probs(self.m, s, z, marker_mask)
            logits = torch.where((qtype == 1)[:, None], ordinal, s)
            return logits.masked_fill(~marker_mask, -1e4)

    return Wrapped().eval()


def decima_rows(model, tok, n: int, seed: int):
    """(row ids, markers, qtype, Decima's own log-probabilities) for varied synthetic questions, scored by
    the package's PyTorch path (`Decima.logits`' steps: encode, choice_scores, log_probs)."""
    import torch

    rng = random.Random(seed)
    words = ["refund", "order", "late", "angry", "happy", "billing", "the", "customer", "asks", "for", "a", "delivery",
             "Zahlung", "заказ", "注文", "طلب", "주문", "42", "3.5", "{", "}", "\"key\":"]
    text = lambda m: " ".join(rng.choice(words) for _ in range(rng.randint(1, m)))  # noqa: E731
    cfg = model.cfg
    out = []
    for i in range(n):
        kind = ["choose", "score", "verify"][i % 3]
        k = 2 if kind == "verify" else rng.randint(2, 10)
        q, choices = text(8), [text(4) for _ in range(k)]
        state = cfg.state_of(text(rng.randint(5, 80)), q, "en")
        s_ids = tok(state, truncation=True, max_length=cfg.max_state_tokens)["input_ids"]
        c_ids = [tok(c, truncation=True, max_length=cfg.max_choice_tokens)["input_ids"] for c in cfg.choices_of(tok, q, choices, "en")]
        with torch.no_grad():
            L = max(map(len, c_ids))
            hc = model.encode(torch.tensor([c + [tok.pad_token_id] * (L - len(c)) for c in c_ids]),
                              torch.tensor([[1] * len(c) + [0] * (L - len(c)) for c in c_ids]))
            mc = torch.tensor([[1] * len(c) + [0] * (L - len(c)) for c in c_ids])
            hs = model.encode(torch.tensor([s_ids]), torch.ones(1, len(s_ids), dtype=torch.long))
            owner = torch.zeros(k, dtype=torch.long)
            sc, z = model.choice_scores(hs, torch.ones(1, len(s_ids), dtype=torch.long), hc, mc, owner)
            lp = model.log_probs(sc, z, owner, 1, [kind], cfg.temperature)[0].numpy()
        ids, markers = list(s_ids), []
        for c in c_ids:
            markers.append(len(ids))
            ids += c
        out.append((ids, markers, {"choose": 0, "score": 1, "verify": 2}[kind], lp))
    return out


def check(model, tok, onnx_path: Path, rows: int, seed: int) -> float:
    """Max |p_onnx − p_decima| over real options, batched in eights (padding and batch-mates included)."""
    import numpy as np
    import onnxruntime as ort

    sess = ort.InferenceSession(str(onnx_path), providers=["CPUExecutionProvider"])
    items = decima_rows(model, tok, rows, seed)
    worst = 0.0
    for (_, m, _, lp), got in batched_logits(sess, items, tok.pad_token_id):
        worst = max(worst, float(np.abs(softmax(got[:len(m)]) - softmax(lp.astype(np.float64))).max()))
    return worst


def export(model, out: Path, external_mb: int) -> Path:
    import torch

    module = engine_module(model)
    model.encoder.set_attn_implementation("eager")
    ids = torch.tensor([[0, 7, 8, 9, 2, 0, 10, 2, 0, 11, 12, 2, 0, 13, 2], [0, 7, 2, 0, 10, 11, 2, 0, 12, 2, 1, 1, 1, 1, 1]])
    att = (ids != 1).to(torch.long)
    args = (ids, att, torch.tensor([[5, 8, 12], [3, 7, 0]]), torch.tensor([[True, True, True], [True, True, False]]), torch.tensor([1, 0]))
    path = out / "model.onnx"
    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(
            module, args, str(path), input_names=INPUTS, output_names=OUTPUTS, opset_version=17, dynamo=False,
            dynamic_axes={"input_ids": {0: "B", 1: "T"}, "attention_mask": {0: "B", 1: "T"}, "marker_pos": {0: "B", 1: "K"},
                          "marker_mask": {0: "B", 1: "K"}, "qtype": {0: "B"}, "logits": {0: "B", 1: "K"}},
        )
    model.encoder.set_attn_implementation("sdpa")
    return save_graph(path, out, external_mb)


def main() -> int:
    a = converter_args(__doc__).parse_args()
    return run_converter(lambda: convert(a), a.verbose)


def convert(a) -> int:
    from importlib.metadata import version

    src, out = Path(a.src), Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    tmp = private_tmp(out)
    step("loading it with decima")
    model, tok, family = load_model(src)
    step("exporting the graph")
    path = export(model, out, a.external_data_mb)
    shutil.copyfile(src / "encoder" / "tokenizer.json", out / "tokenizer.json")
    if a.check_rows > 0:
        step(f"checking the graph against decima's own scoring ({a.check_rows} rows)")
    worst = check(model, tok, path, a.check_rows, a.seed) if a.check_rows > 0 else None
    if worst is not None and worst > 1e-4:
        raise Refused(f"the exported graph's probabilities disagree with decima's own scoring by {worst:.2e} (> 1e-4) "
                      f"on its {a.check_rows} check rows")
    cfg = model.cfg
    shutil.rmtree(tmp, ignore_errors=True)
    return write_facts(out, "decima_import.json", {
        "format": "decima-import/1",
        "decima_version": version("decima-ai"),
        "encoder": json.loads((src / "decima.json").read_text()).get("backbone"),
        "encoder_family": family,
        "late_interaction": {
            "max_state_tokens": int(cfg.max_state_tokens), "max_choice_tokens": int(cfg.max_choice_tokens),
            "state_prefix": cfg.state_prefix, "choice_prefix": cfg.choice_prefix,
            "question_in_state": bool(cfg.question_in_state), "question_in_choices": bool(cfg.question_in_choices),
            "choice_fit": bool(cfg.choice_fit),
        },
        "temperature": float(cfg.temperature),
        "special_tokens": {"cls": tok.cls_token, "sep": tok.sep_token, "mask": tok.mask_token or tok.unk_token, "pad": tok.pad_token},
        "check": {"rows": a.check_rows, "max_abs_prob_diff": worst},
        "files": sorted(f.name for f in out.iterdir() if not f.name.startswith(".")),
    })


if __name__ == "__main__":
    sys.exit(main())
