"""Convert a Laya checkpoint folder (PyTorch form) into the engine's ONNX graph (issue 22).

    python training/laya/convert.py --src LAYA_DIR --out WORK_DIR [--check-rows N] [--external-data-mb M]

LAYA_DIR is what `laya` 0.4.15 saves and loads (`laya.train.save_checkpoint`, `laya.Agent`):
rl_agent_config.json, model.safetensors (fp16), encoder/config.json, tokenizer/. The model is loaded by
the `laya` package itself (`laya.Agent`, CPU, fp32), so the graph computes exactly what laya computes.

Writes into WORK_DIR:
  model.onnx (+ model.onnx.data when the weights exceed --external-data-mb) with the engine's I/O:
    input_ids [B,T] int64, attention_mask [B,T] int64, marker_pos [B,K] int64, marker_mask [B,K] bool,
    qtype [B] int64 → logits [B,K] (−1e4 on padded markers), act_logits [B,2];
  tokenizer.json (the checkpoint's own, unchanged);
  laya_import.json: the facts the manifest is made from (window, head budget, special tokens as laya's
    tokenizer reports them, temperatures as the config carries them, layout, encoder family) and the
    agreement check of the graph against laya's own PyTorch forward.

The parallel option layout (`option_layout: "parallel"`, laya.common.parallel_layout) is computed inside
the graph from the marker positions: every option starts at the first marker's position, the closing
[SEP] (the first [SEP] after the last marker) and the state continue after the longest option, and an
option's tokens do not attend to another option's (laya.common.parallel_option_masks).

Anything the graph cannot represent is refused with exit status 2 and a message on stderr.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import sys
import warnings
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")

INPUTS = ["input_ids", "attention_mask", "marker_pos", "marker_mask", "qtype"]
OUTPUTS = ["logits", "act_logits"]
FAMILIES = ("modernbert",)


class Refused(Exception):
    """What the importer cannot represent; the message says what and why."""


def load_agent(src: Path):
    import laya

    cfg_path = src / "rl_agent_config.json"
    if not cfg_path.exists():
        raise Refused(f"{src}: no rl_agent_config.json: not a Laya checkpoint folder (laya saves rl_agent_config.json, "
                      "model.safetensors, encoder/, tokenizer/)")
    for need in ("model.safetensors", "tokenizer"):
        if not (src / need).exists():
            raise Refused(f"{src}: no {need}: not a complete Laya checkpoint folder")
    enc_cfg = src / "encoder" / "config.json"
    if not enc_cfg.exists():
        raise Refused(f"{src}: no encoder/config.json; laya would download the base encoder's config from the hub, "
                      "the importer reads only the folder")
    family = json.loads(enc_cfg.read_text()).get("model_type")
    if family not in FAMILIES:
        raise Refused(f"{src}: encoder model_type {family!r} is not supported (supported: {', '.join(FAMILIES)}: "
                      "ModernBERT and mmBERT); its graph has not been verified against laya")
    cfg = json.loads(cfg_path.read_text())
    if cfg.get("option_layout", "sequential") not in ("sequential", "parallel"):
        raise Refused(f"option_layout {cfg.get('option_layout')!r} is unknown to laya 0.4.15")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        agent = laya.load(str(src), device="cpu")
    agent.model.float().eval()
    return agent, cfg, family


class EngineGraph:
    """Builds the torch module traced into ONNX: the engine's five inputs → laya's DecisionModel."""

    def __init__(self, agent):
        import torch

        model = agent.model
        self.parallel = bool(agent.parallel_options)
        self.sep_id = int(agent.tok.sep_token_id)
        enc_cfg = model.encoder.config
        self.window = getattr(enc_cfg, "sliding_window", None)
        layer_types = set(getattr(enc_cfg, "layer_types", None) or ["full_attention"])
        sep_id, parallel, window = self.sep_id, self.parallel, self.window

        class Wrapped(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.model = model

            def forward(self, input_ids, attention_mask, marker_pos, marker_mask, qtype):
                B, T = input_ids.shape
                t = torch.arange(T, device=input_ids.device).unsqueeze(0).expand(B, T)
                if parallel:
                    position_ids, option_ids = parallel_positions(input_ids, marker_pos, marker_mask, t, sep_id)
                else:
                    position_ids, option_ids = t, torch.zeros_like(t)
                # The masks laya builds (parallel_option_masks; for the sequential layout the same formula
                # with no options is transformers' padding and sliding-window mask), as additive float masks
                # for the eager attention the graph is traced with.
                keys = attention_mask.bool()[:, None, :]
                other = (option_ids[:, :, None] > 0) & (option_ids[:, None, :] > 0) & (option_ids[:, :, None] != option_ids[:, None, :])
                full = keys & ~other
                neg = torch.finfo(torch.float32).min
                masks = {}
                if "full_attention" in layer_types:
                    masks["full_attention"] = torch.zeros(full.shape, dtype=torch.float32).masked_fill(~full, neg)[:, None]
                if "sliding_attention" in layer_types:
                    near = (position_ids[:, :, None] - position_ids[:, None, :]).abs() <= window
                    local = full & near
                    masks["sliding_attention"] = torch.zeros(local.shape, dtype=torch.float32).masked_fill(~local, neg)[:, None]
                h = self.model.encoder(input_ids=input_ids, attention_mask=masks, position_ids=position_ids).last_hidden_state
                return head_forward(self.model, h, attention_mask, marker_pos, marker_mask, qtype)

        self.module = Wrapped().eval()


def parallel_positions(input_ids, marker_pos, marker_mask, t, sep_id):
    """laya.common.parallel_layout, vectorised over a padded batch."""
    import torch

    mm = marker_mask
    big = torch.full_like(marker_pos, 1 << 30)
    last = torch.where(mm, marker_pos, torch.full_like(marker_pos, -1)).max(dim=1).values  # [B]
    is_sep = (input_ids == sep_id) & (t > last[:, None])
    close = torch.argmax(is_sep.to(torch.int32), dim=1)  # first [SEP] after the last marker: head_len - 1
    m0 = marker_pos[:, 0]
    # span of slot s: [m_s, next real marker or the closing [SEP])
    nxt = torch.cat([marker_pos[:, 1:], big[:, :1]], dim=1)
    nxt_real = torch.cat([mm[:, 1:], torch.zeros_like(mm[:, :1])], dim=1)
    ends = torch.where(nxt_real, nxt, close[:, None].expand_as(nxt))
    span = torch.where(mm, ends - marker_pos, torch.zeros_like(marker_pos))
    longest = span.max(dim=1).values
    count = ((marker_pos[:, None, :] <= t[:, :, None]) & mm[:, None, :]).sum(dim=2)  # [B,T] markers at or before t
    slot = (count - 1).clamp(min=0)
    start = torch.gather(marker_pos, 1, slot)
    in_option = (count >= 1) & (t < close[:, None])
    after = m0 + longest
    position_ids = torch.where(in_option, m0[:, None] + t - start,
                               torch.where(t < m0[:, None], t, after[:, None] + t - close[:, None]))
    option_ids = torch.where(in_option, count, torch.zeros_like(count))
    return position_ids, option_ids


def head_forward(model, h, attention_mask, marker_pos, marker_mask, qtype):
    """DecisionModel.forward after the encoder (laya/common.py), unchanged in substance."""
    import torch

    h = h + model.type_emb(qtype)[:, None, :]
    if model.head is not None:
        pad = ~attention_mask.bool()
        for layer in model.head.layers:
            h = layer(h, src_key_padding_mask=pad)
    idx = marker_pos.clamp(min=0)[:, :, None].expand(-1, -1, h.size(-1))
    m = torch.gather(h, 1, idx)
    logits = model.scorer(m).squeeze(-1).float()
    logits = logits.masked_fill(~marker_mask, -1e4)
    p = torch.softmax(logits, -1)
    k = marker_mask.sum(-1).clamp(min=2).float()
    ent = -(p * torch.log(p.clamp_min(1e-9))).sum(-1) / torch.log(k)
    top2 = p.topk(2, -1).values
    feats = torch.stack([top2[:, 0], top2[:, 0] - top2[:, 1], ent, k / 255.0], -1)
    act_logits = model.act_head(torch.cat([h[:, 0].float(), feats], -1))
    return logits, act_logits


def sample_rows(agent, n: int, seed: int):
    """Rows built by laya's own sequence builder from varied synthetic requests, for the agreement check."""
    from laya.common import collate_items

    rng = random.Random(seed)
    words = ["refund", "order", "late", "angry", "happy", "billing", "the", "customer", "asks", "for", "a", "delivery",
             "Zahlung", "заказ", "注文", "طلب", "주문", "42", "3.5", "{", "}", "\"key\":"]
    items = []
    for i in range(n):
        t = ["choice", "score", "noul"][i % 3]
        k = 2 if t == "noul" else rng.randint(2, 12)
        text = lambda m: " ".join(rng.choice(words) for _ in range(rng.randint(1, m)))  # noqa: E731
        if t == "choice":
            crit = {f"{text(2)} {j}": text(4) for j in range(k)}
        elif t == "score":
            crit = [text(4) for _ in range(k)]
        else:
            crit = {"false": text(3), "true": text(3)}
        q = {"type": t, "instructions": text(12), "criteria": crit}
        internal = {"q": agent._to_internal(q)}
        items += agent._encode_state(text(rng.randint(5, 120)), ["q"], internal)
    return items, collate_items


def check(agent, module, onnx_path: Path, rows: int, seed: int):
    """Max |difference| between onnxruntime and laya's own forward over real marker slots: (logits, probabilities at T=1)."""
    import numpy as np
    import onnxruntime as ort
    import torch

    items, collate = sample_rows(agent, rows, seed)
    sess = ort.InferenceSession(str(onnx_path), providers=["CPUExecutionProvider"])
    worst, worst_p = 0.0, 0.0

    def softmax(z):
        z = np.where(mask, z, -np.inf)
        e = np.exp(z - z.max(axis=1, keepdims=True))
        return e / e.sum(axis=1, keepdims=True)

    for lo in range(0, len(items), 8):
        chunk = items[lo:lo + 8]
        b = collate([chunk], agent.tok.pad_token_id)
        feed = {k: b[k].numpy() for k in INPUTS}
        with torch.no_grad():
            ref, _ = agent._forward({k: v for k, v in b.items() if k not in ("meta", "label")})
        got = sess.run(["logits"], feed)[0]
        mask = feed["marker_mask"]
        worst = max(worst, float(np.abs(np.where(mask, got - ref, 0)).max()))
        worst_p = max(worst_p, float(np.abs(softmax(got) - softmax(ref)).max()))
    return worst, worst_p


def batched_logits(sess, items, pad_id: int, batch: int = 8):
    """Each ``(ids, markers, qtype, …)`` item with its row of the graph's logits (float64), run ``batch``
    rows at a time, right-padded with ``pad_id`` as the engine pads them, so padding and batch-mates are
    part of what an agreement check compares."""
    import numpy as np

    for lo in range(0, len(items), batch):
        chunk = items[lo:lo + batch]
        T, K = max(len(c[0]) for c in chunk), max(len(c[1]) for c in chunk)
        ids = np.full((len(chunk), T), pad_id, np.int64); att = np.zeros((len(chunk), T), np.int64)
        pos = np.zeros((len(chunk), K), np.int64); mm = np.zeros((len(chunk), K), bool)
        for r, c in enumerate(chunk):
            i, m = c[0], c[1]
            ids[r, :len(i)], att[r, :len(i)], pos[r, :len(m)], mm[r, :len(m)] = i, 1, m, True
        feed = {"input_ids": ids, "attention_mask": att, "marker_pos": pos, "marker_mask": mm,
                "qtype": np.array([c[2] for c in chunk], np.int64)}
        yield from zip(chunk, sess.run(["logits"], feed)[0].astype(np.float64))


def softmax(z):
    import numpy as np

    e = np.exp(z - z.max())
    return e / e.sum()


def quantize(agent, out: Path, rows: int, seed: int, external: bool) -> dict:
    """model.int8.onnx (onnxruntime quantize_dynamic: int8 weights of every weight MatMul, 7-bit
    `reduce_range` as the engine's int8 fixtures, dynamic activations) and its agreement with laya's own
    fp32 forward, one row per run as the engine runs an int8 graph."""
    import numpy as np
    import onnx
    import onnxruntime as ort
    import torch
    from onnxruntime.quantization import QuantType, quantize_dynamic

    fp32 = out / "model.onnx"
    model = onnx.load(str(fp32), load_external_data=False)
    inits = {i.name for i in model.graph.initializer}
    nodes = [n.name for n in model.graph.node if n.op_type in ("MatMul", "Gemm") and len(n.input) > 1 and n.input[1] in inits]
    target = out / "model.int8.onnx"
    quantize_dynamic(str(fp32), str(target), weight_type=QuantType.QInt8, reduce_range=True, nodes_to_quantize=nodes,
                     use_external_data_format=external)
    items, collate = sample_rows(agent, rows, seed + 1)
    sess = ort.InferenceSession(str(target), providers=["CPUExecutionProvider"])
    same, worst = 0, 0.0
    for it in items:
        b = collate([[it]], agent.tok.pad_token_id)
        feed = {k: b[k].numpy() for k in INPUTS}
        with torch.no_grad():
            ref, _ = agent._forward({k: v for k, v in b.items() if k not in ("meta", "label")})
        got = sess.run(["logits"], feed)[0]
        k = len(it["markers"])
        p = lambda z: np.exp(z - z.max()) / np.exp(z - z.max()).sum()  # noqa: E731
        same += int(np.argmax(got[0, :k]) == np.argmax(ref[0, :k]))
        worst = max(worst, float(np.abs(p(got[0, :k].astype(np.float64)) - p(ref[0, :k].astype(np.float64))).max()))
    return {"rows": len(items), "argmax_agreement": same / max(1, len(items)), "max_abs_prob_diff": worst,
            "quantized_matmuls": len(nodes)}


def export(agent, out: Path, external_mb: int) -> Path:
    import onnx
    import torch

    graph = EngineGraph(agent)
    enc = agent.model.encoder
    enc.set_attn_implementation("eager")  # plain MatMul/Softmax with the additive masks built above
    sep, cls, mask_id = agent.tok.sep_token_id, agent.tok.cls_token_id, agent.tok.mask_token_id
    ids = torch.tensor([[cls, 7, 8, sep, mask_id, 9, mask_id, 10, 11, mask_id, 12, sep, 13, 14, sep, 0],
                        [cls, 7, sep, mask_id, 9, mask_id, 10, sep, 13, 14, 15, sep, 0, 0, 0, 0]], dtype=torch.long)
    att = torch.tensor([[1] * 15 + [0], [1] * 12 + [0] * 4], dtype=torch.long)
    args = (ids, att, torch.tensor([[4, 6, 9], [3, 5, 0]]), torch.tensor([[True, True, True], [True, True, False]]),
            torch.tensor([0, 2]))
    path = out / "model.onnx"
    torch.backends.mha.set_fastpath_enabled(False)  # the head's TransformerEncoderLayer: composite ops, not the fused kernel
    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(
            graph.module, args, str(path), input_names=INPUTS, output_names=OUTPUTS, opset_version=17, dynamo=False,
            dynamic_axes={"input_ids": {0: "B", 1: "T"}, "attention_mask": {0: "B", 1: "T"}, "marker_pos": {0: "B", 1: "K"},
                          "marker_mask": {0: "B", 1: "K"}, "qtype": {0: "B"}, "logits": {0: "B", 1: "K"}, "act_logits": {0: "B"}},
        )
    enc.set_attn_implementation("sdpa")
    return save_graph(path, out, external_mb)


def save_graph(path: Path, out: Path, external_mb: int) -> Path:
    """Rewrite an exported graph as one file, or with its weights in one external-data file above `external_mb`."""
    import onnx

    model = onnx.load(str(path), load_external_data=True)
    weight_bytes = sum(len(t.raw_data) for t in model.graph.initializer)
    for f in out.iterdir():
        if f.name != "model.onnx" and f.suffix != ".json" and f.is_file() and f.name != "tokenizer.json":
            f.unlink()  # the exporter's own external-data shards, if any: rewritten below as one file
    if weight_bytes > external_mb * 1024 * 1024:
        # One external-data file next to the graph: onnxruntime maps it instead of copying the protobuf.
        onnx.save_model(model, str(path), save_as_external_data=True, all_tensors_to_one_file=True,
                        location="model.onnx.data", size_threshold=1024)
    else:
        onnx.save_model(model, str(path))
    return path


def converter_args(doc: str) -> argparse.ArgumentParser:
    """The arguments every family's converter takes (import.ts passes them the same way)."""
    ap = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--src", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--check-rows", type=int, default=48)
    ap.add_argument("--external-data-mb", type=int, default=1024)
    ap.add_argument("--seed", type=int, default=22)
    return ap


def write_facts(out: Path, name: str, facts: dict) -> int:
    """The converter's report, read by import.ts to write the manifest."""
    (out / name).write_text(json.dumps(facts, indent=2, ensure_ascii=False) + "\n")
    print(json.dumps(facts))
    return 0


def run_refusing(body) -> int:
    """Exit status 2 and `refused: <what and why>` on stderr for what the importer cannot represent."""
    try:
        return body()
    except Refused as e:
        print(f"refused: {e}", file=sys.stderr)
        return 2


def main() -> int:
    ap = converter_args(__doc__)
    ap.add_argument("--int8", action="store_true", help="also write model.int8.onnx and report its agreement with laya")
    ap.add_argument("--int8-rows", type=int, default=200)
    a = ap.parse_args()
    return run_refusing(lambda: convert(a))


def convert(a) -> int:
    src, out = Path(a.src), Path(a.out)
    agent, cfg, family = load_agent(src)
    out.mkdir(parents=True, exist_ok=True)
    tok_json = src / "tokenizer" / "tokenizer.json"
    if not tok_json.exists():
        raise Refused(f"{src}/tokenizer has no tokenizer.json (a fast tokenizer): the engine reads only that format")
    path = export(agent, out, a.external_data_mb)
    shutil.copyfile(tok_json, out / "tokenizer.json")
    worst, worst_p = check(agent, None, path, a.check_rows, a.seed) if a.check_rows > 0 else (None, None)
    if worst_p is not None and worst_p > 1e-4:
        raise Refused(f"the exported graph's probabilities disagree with laya's forward by {worst_p:.2e} (> 1e-4) "
                      f"on its {a.check_rows} check rows (logits by {worst:.2e})")
    int8 = None
    if a.int8:
        int8 = quantize(agent, out, a.int8_rows, a.seed, (out / "model.onnx.data").exists())
    tok = agent.tok
    enc_cfg = json.loads((src / "encoder" / "config.json").read_text())
    vocab = int(enc_cfg.get("vocab_size", 0))
    multilingual = vocab > 200000 or "mmbert" in str(cfg.get("encoder", "")).lower()
    facts = {
        "format": "laya-import/1",
        "laya_version": __import__("laya").__version__ if hasattr(__import__("laya"), "__version__") else None,
        "encoder": cfg.get("encoder"),
        "encoder_family": "mmbert" if multilingual else family,
        "option_layout": "parallel" if agent.parallel_options else "sequential",
        "max_len": int(cfg.get("max_len", 512)),
        "head_max_len": int(cfg.get("head_max_len", 192)),
        "special_tokens": {"cls": tok.cls_token, "sep": tok.sep_token, "mask": tok.mask_token, "pad": tok.pad_token},
        "special_ids": {"cls": tok.cls_token_id, "sep": tok.sep_token_id, "mask": tok.mask_token_id, "pad": tok.pad_token_id},
        "temperature": cfg.get("temperature"),
        "temperature_by_options": cfg.get("temperature_by_options"),
        "lang_temperatures": cfg.get("lang_temperatures"),
        "check": {"rows": a.check_rows, "max_abs_logit_diff": worst, "max_abs_prob_diff": worst_p},
        "int8": int8,
        "files": sorted(f.name for f in out.iterdir()),
    }
    return write_facts(out, "laya_import.json", facts)


if __name__ == "__main__":
    sys.exit(main())
