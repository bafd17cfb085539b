"""Convert a Laya checkpoint folder (PyTorch form) into the engine's ONNX graph (issues 22 and 31).

    python training/laya/convert.py --src LAYA_DIR --out WORK_DIR [--check-rows N] [--external-data-mb M]
        [--int8 [--int8-rows N]] [--verbose]

LAYA_DIR is what `laya` 0.4.15 saves and loads (`laya.train.save_checkpoint`, `laya.Agent`):
rl_agent_config.json, model.safetensors (fp16), encoder/config.json, tokenizer/. The model is loaded by
the `laya` package itself (`laya.load`, CPU, fp32), so the graph computes exactly what laya computes.
LAYA_DIR is only read: laya's loader rewrites tokenizer/tokenizer_config.json in place for some
transformers versions, so it loads a shadow of the folder (links to its files, the tokenizer folder
copied) inside WORK_DIR.

Writes into WORK_DIR:
  model.onnx (+ model.onnx.data when the weights exceed --external-data-mb) with the engine's I/O:
    input_ids [B,T] int64, attention_mask [B,T] int64, marker_pos [B,K] int64, marker_mask [B,K] bool,
    qtype [B] int64 → logits [B,K] (−1e4 on padded markers), act_logits [B,2];
  model.int8.onnx (--int8: onnxruntime's dynamic quantisation) and its agreement with laya's fp32;
  tokenizer.json (the checkpoint's own, unchanged);
  laya_import.json: the facts the manifest is made from (window, head budget, special tokens as laya's
    tokenizer reports them, the temperatures laya applies, layout, encoder family) and the agreement
    check of the graph against laya's own PyTorch forward.

Memory (a ModernBERT-large checkpoint is 1.6 GB in fp32): laya's reference logits for every check row
are computed first, the graph is exported without its weights (torch's exporter would hold them two or
three more times while it serialises one protobuf) and the weights are streamed from the model's own
tensors into the graph's external-data file; the torch model is freed before ONNX Runtime loads the graph.

The parallel option layout (`option_layout: "parallel"`, laya.common.parallel_layout) is computed inside
the graph from the marker positions: every option starts at the first marker's position, the closing
[SEP] (the first [SEP] after the last marker) and the state continue after the longest option, and an
option's tokens do not attend to another option's (laya.common.parallel_option_masks).

A checkpoint the graph cannot represent, or a broken one (a truncated or malformed model.safetensors, a
missing tensor, an encoder config that does not match the weights, an unknown activation, invalid JSON,
a malformed temperature, an impossible max_len), is refused with exit status 2 and one line naming the
file and what was found and expected (training/converting.py). Where laya loads a checkpoint with a
warning (a temperature that is not a number or outside [0.5, 5]), so does the import, in plain words.
"""

from __future__ import annotations

import gc
import json
import os
import random
import re
import shutil
import sys
import warnings
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from converting import (INPUTS, Refused, converter_args, one_line, private_tmp, progress, read_json, run_converter,  # noqa: E402
                        safetensors_index, step, warn, write_facts)

OUTPUTS = ["logits", "act_logits"]
FAMILIES = ("modernbert",)
QTYPES = ("choice", "score", "noul")
BUCKETS = {"choice": ["2", "3-5", "6-10", "11+"], "score": ["2", "3-5", "6-10", "11+"], "noul": ["2"]}
CONFIG = "rl_agent_config.json"
WEIGHTS = "model.safetensors"
ENCODER_CONFIG = "encoder/config.json"


# ---------------------------------------------------------------------------------------------- reading

def is_int(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def read_checkpoint(src: Path):
    """The folder's configs and its weights' index, checked before anything heavy loads: every refusal
    names the file (relative to the folder) and what was found and expected."""
    for need in (CONFIG, WEIGHTS, ENCODER_CONFIG, "tokenizer/tokenizer.json"):
        if not (src / need).is_file():
            raise Refused(f"{need}: missing; a Laya checkpoint folder holds rl_agent_config.json, model.safetensors, "
                          "encoder/config.json and tokenizer/ (laya would fetch a missing encoder config from the hub; "
                          "the importer reads only the folder)")
    cfg = read_json(src / CONFIG, CONFIG)
    enc = read_json(src / ENCODER_CONFIG, ENCODER_CONFIG)
    for name in ("tokenizer.json", "tokenizer_config.json", "special_tokens_map.json"):
        if (src / "tokenizer" / name).exists():
            read_json(src / "tokenizer" / name, f"tokenizer/{name}")
    family = enc.get("model_type")
    if family not in FAMILIES:
        raise Refused(f"{ENCODER_CONFIG}: model_type {family!r} is not supported (supported: {', '.join(FAMILIES)}: "
                      "ModernBERT and mmBERT); its graph has not been verified against laya")
    for key in ("encoder", "head_layers"):
        if key not in cfg:
            raise Refused(f"{CONFIG}: no {key}; laya needs encoder and head_layers in a decision model's config")
    if cfg.get("option_layout", "sequential") not in ("sequential", "parallel"):
        raise Refused(f"{CONFIG}: option_layout is {cfg.get('option_layout')!r}; laya 0.4.15 knows \"sequential\" and \"parallel\"")
    temperature = cfg.get("temperature", [1.0, 1.0, 1.0])
    if not isinstance(temperature, list) or len(temperature) != 3:
        raise Refused(f"{CONFIG}: temperature is {short(temperature)}; expected a list of 3 numbers [choice, score, noul] "
                      "(laya refuses any other shape)")
    by_options = cfg.get("temperature_by_options", {})
    if not isinstance(by_options, dict):
        raise Refused(f"{CONFIG}: temperature_by_options is {short(by_options)}; expected an object of \"<type>:<bucket>\" "
                      "→ number, e.g. {\"choice:3-5\": 1.2} (laya cannot read any other shape)")
    head = cfg.get("head_max_len", 192)
    if not is_int(head) or head < 1:
        raise Refused(f"{CONFIG}: head_max_len is {short(head)}; expected a positive integer (laya's token budget for "
                      "the question and its options; 192 when absent)")
    max_len = cfg.get("max_len", 512)
    positions = enc.get("max_position_embeddings")
    if not is_int(max_len) or max_len <= head or (is_int(positions) and max_len > positions):
        within = f" and at most {ENCODER_CONFIG}'s max_position_embeddings ({positions})" if is_int(positions) else ""
        raise Refused(f"{CONFIG}: max_len is {short(max_len)}; expected an integer above head_max_len ({head}){within}: "
                      "the longest sequence, question and state, laya reads")
    from transformers.activations import ACT2FN

    act = enc.get("hidden_activation", "gelu")
    if not isinstance(act, str) or act not in ACT2FN:
        raise Refused(f"{ENCODER_CONFIG}: hidden_activation is {short(act)}; expected an activation transformers knows "
                      f"({', '.join(sorted(ACT2FN))})")
    tensors = safetensors_index(src / WEIGHTS, WEIGHTS)
    return cfg, enc, family, tensors


def short(v) -> str:
    import json

    text = json.dumps(v, ensure_ascii=False)
    return text if len(text) <= 80 else text[:77] + "…"


def check_tensors(src: Path, cfg: dict, enc: dict, tensors: dict) -> None:
    """model.safetensors against the model laya builds from the configs (on the meta device: no memory):
    laya loads strictly, so a missing or extra tensor, or one of another shape, is a refusal here."""
    import torch
    from laya.common import build_model

    try:
        with torch.device("meta"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model = build_model(cfg, encoder_dir=str(src / "encoder"), pretrained=False)
    except Exception as e:  # noqa: BLE001 — transformers' own reason, on one line
        raise Refused(f"{ENCODER_CONFIG}: transformers cannot build the encoder it describes: "
                      f"{type(e).__name__}: {one_line(e)}") from None
    want = {k: tuple(v.shape) for k, v in model.state_dict().items()}
    del model
    missing = [k for k in want if k not in tensors]
    extra = [k for k in tensors if k not in want]
    layer = re.compile(r"^encoder\.layers\.(\d+)\.")
    layers_want = {int(m.group(1)) for k in want if (m := layer.match(k))}
    layers_have = {int(m.group(1)) for k in tensors if (m := layer.match(k))}
    if layers_want != layers_have and layers_have:
        raise Refused(f"{ENCODER_CONFIG} does not match {WEIGHTS}: num_hidden_layers is {enc.get('num_hidden_layers')}, "
                      f"the weights hold {len(layers_have)} encoder layers")
    if missing:
        more = f" (and {len(missing) - 1} more)" if len(missing) > 1 else ""
        raise Refused(f"{WEIGHTS}: no tensor {missing[0]}{more}; laya's model for these configs needs it "
                      f"({len(want)} tensors, the file has {len(tensors)})")
    if extra:
        more = f" (and {len(extra) - 1} more)" if len(extra) > 1 else ""
        raise Refused(f"{WEIGHTS}: tensor {extra[0]}{more} is not part of laya's model for these configs "
                      "(laya loads strictly)")
    for name, shape in want.items():
        found = tensors[name][1]
        if found != shape:
            sizes = ", ".join(f"{k} {enc[k]}" for k in ("hidden_size", "intermediate_size", "vocab_size", "num_attention_heads")
                              if k in enc)
            raise Refused(f"{ENCODER_CONFIG} does not match {WEIGHTS}: tensor {name} is {list(found)} in the weights, "
                          f"{list(shape)} by the config ({sizes})")


def temperature_warnings(cfg: dict) -> list[str]:
    """laya's own load-time warning ("this checkpoint ships invalid temperatures or values outside [0.5, 5]"),
    entry by entry in plain words, decided by laya's own clamp_temperature and temperature_rejected."""
    from laya.common import TEMP_MAX, TEMP_MIN, clamp_temperature, temperature_rejected

    entries = [(f"temperature[{i}] ({QTYPES[i]})", t) for i, t in enumerate(cfg.get("temperature", [1.0, 1.0, 1.0]))]
    entries += [(f"temperature_by_options[{json.dumps(k)}]", v) for k, v in cfg.get("temperature_by_options", {}).items()]
    out = []
    for name, raw in entries:
        applied = clamp_temperature(raw)
        if not temperature_rejected(raw, applied):
            continue
        why = "not a number" if as_number(raw) is None else f"outside laya's [{TEMP_MIN:g}, {TEMP_MAX:g}]"
        out.append(f"{CONFIG}: {name} is {short(raw)}, {why}: laya uses {applied:g} instead, and so does this import "
                   "(treat the confidence of those answers as uncalibrated)")
    if "lang_temperatures" in cfg:
        out.append(f"{CONFIG}: lang_temperatures is not read by laya when it loads a checkpoint (only laya.load(..., "
                   "lang_temperatures=...)); the import ignores it as laya does (a manifest's calibration.by_language "
                   "applies per-language temperatures)")
    return out


def as_number(v):
    """What Python's float() makes of a config value (as laya's clamp reads it), or None."""
    import math

    if isinstance(v, bool):
        return None
    try:
        f = float(v)
    except (TypeError, ValueError):
        return None
    return f if math.isfinite(f) else None


def shadow_of(src: Path, work: Path) -> Path:
    """A folder laya can load and patch: links to the source's files, its tokenizer/ copied (laya's
    _fix_tokenizer_config rewrites tokenizer/tokenizer_config.json in place). The source is never written."""
    shadow = work / ".laya-source"
    shadow.mkdir()
    for entry in src.iterdir():
        if entry.name == "tokenizer" and entry.is_dir():
            for root, _, files in os.walk(entry):
                dest = shadow / Path(root).relative_to(src)
                dest.mkdir(parents=True, exist_ok=True)
                for f in files:  # contents only: a read-only source gives writable copies
                    shutil.copyfile(Path(root) / f, dest / f)
        else:
            (shadow / entry.name).symlink_to(entry.resolve())
    return shadow


def load_agent(src: Path, work: Path):
    import laya

    shadow = shadow_of(src, work)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # its temperature warning is given entry by entry (temperature_warnings)
            agent = laya.load(str(shadow), device="cpu")
    except Exception as e:  # noqa: BLE001 — what the checks before did not foresee, on one line
        first = one_line(e).replace(str(shadow), str(src))
        raise RuntimeError(f"laya {getattr(laya, '__version__', '')} cannot load {src}: {type(e).__name__}: {first}") from e
    agent.model.float().eval()
    return agent, shadow


# ---------------------------------------------------------------------------------------------- the graph

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


def laya_references(agent, items, collate, batch: int = 8):
    """laya's own forward (PyTorch, fp32) on the rows, `batch` at a time, collated as laya collates them: the
    feeds and the reference logits an agreement check compares the graph with, computed before the graph is
    loaded so the torch model can be freed first. The rows are sorted by length before they are batched:
    a batch still pads its shorter rows, with fewer padded tokens to compute."""
    import torch

    items = sorted(items, key=lambda it: len(it["ids"]))
    out = []
    for lo in range(0, len(items), batch):
        chunk = items[lo:lo + batch]
        b = collate([chunk], agent.tok.pad_token_id)
        with torch.no_grad():
            ref, _ = agent._forward({k: v for k, v in b.items() if k not in ("meta", "label")})
        out.append((chunk, {k: b[k].numpy() for k in INPUTS}, np_array(ref)))
        progress(min(lo + batch, len(items)), len(items), "rows")
    return out


def np_array(x):
    import numpy as np

    return x.detach().cpu().numpy() if hasattr(x, "detach") else np.asarray(x)


def session(path: Path):
    """onnxruntime as the engine runs it on this machine's cores, its threads not spinning between runs
    (on a shared or busy machine a spinning pool takes the cores its own next run needs)."""
    import onnxruntime as ort

    so = ort.SessionOptions()
    so.intra_op_num_threads = len(os.sched_getaffinity(0))
    so.add_session_config_entry("session.intra_op.allow_spinning", "0")
    return ort.InferenceSession(str(path), so, providers=["CPUExecutionProvider"])


def check(onnx_path: Path, references):
    """Max |difference| between onnxruntime and laya's own forward over real marker slots: (logits, probabilities at T=1)."""
    import numpy as np

    sess = session(onnx_path)
    worst, worst_p, rows = 0.0, 0.0, 0

    def softmax(z, mask):
        z = np.where(mask, z, -np.inf)
        e = np.exp(z - z.max(axis=1, keepdims=True))
        return e / e.sum(axis=1, keepdims=True)

    for _, feed, ref in references:
        got = sess.run(["logits"], feed)[0]
        mask = feed["marker_mask"]
        worst = max(worst, float(np.abs(np.where(mask, got - ref, 0)).max()))
        worst_p = max(worst_p, float(np.abs(softmax(got, mask) - softmax(ref, mask)).max()))
        rows += len(ref)
        progress(rows, sum(len(r) for _, _, r in references), "rows")
    return worst, worst_p


def quantize(out: Path, references, collate, pad_id: int, external: bool) -> dict:
    """model.int8.onnx (onnxruntime's dynamic quantisation of every weight MatMul: int8 weights, 7-bit
    `reduce_range` as the engine's int8 fixtures, dynamic activations; made one weight at a time by
    training/quantize.py, the same graph as onnxruntime's quantize_dynamic in a fraction of its memory) and
    its agreement with laya's own fp32 forward, one row per run as the engine runs an int8 graph (laya's
    logits for those rows were computed eight at a time: padding moves them by ~1e-6, nothing beside int8's
    differences)."""
    import numpy as np
    from quantize import quantize_int8

    target = out / "model.int8.onnx"
    quantized = quantize_int8(out / "model.onnx", target, external, progress=lambda done, total: progress(done, total, "bytes"))
    gc.collect()
    rows = [(it, ref[r]) for chunk, _, ref in references for r, it in enumerate(chunk)]
    step(f"checking the int8 graph against laya's fp32 ({len(rows)} rows, one per run)")
    sess = session(target)
    same, worst = 0, 0.0
    p = lambda z: np.exp(z - z.max()) / np.exp(z - z.max()).sum()  # noqa: E731
    for i, (it, ref) in enumerate(rows):
        b = collate([[it]], pad_id)
        got = sess.run(["logits"], {k: b[k].numpy() for k in INPUTS})[0]
        k = len(it["markers"])
        same += int(np.argmax(got[0, :k]) == np.argmax(ref[:k]))
        worst = max(worst, float(np.abs(p(got[0, :k].astype(np.float64)) - p(ref[:k].astype(np.float64))).max()))
        progress(i + 1, len(rows), "rows")
    return {"rows": len(rows), "argmax_agreement": same / max(1, len(rows)), "max_abs_prob_diff": worst,
            "quantized_matmuls": quantized}


def export(agent, out: Path) -> tuple[Path, dict]:
    """The graph without its weights, and the weights by initializer name (the model's own tensors, no copy).

    torch's TorchScript exporter would serialise one protobuf holding every weight (a copy in the protobuf,
    one in its bytes, one in Python's), several times the model's size in memory; here its graph comes
    from the same exporter with the weights left out (`_model_to_graph`'s parameters are kept aside and
    the rest of torch.onnx.export runs on an empty set), and write_weights streams them to disk."""
    import torch
    from torch.onnx._internal.torchscript_exporter import utils as exporter  # torch 2.13.0, pinned

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
    weights: dict = {}
    to_graph = exporter._model_to_graph

    def graph_only(*args, **kwargs):
        g, params, outputs = to_graph(*args, **kwargs)
        weights.update(params)
        return g, {}, outputs

    torch.backends.mha.set_fastpath_enabled(False)  # the head's TransformerEncoderLayer: composite ops, not the fused kernel
    exporter._model_to_graph = graph_only
    try:
        with torch.no_grad(), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            torch.onnx.export(
                graph.module, args, str(path), input_names=INPUTS, output_names=OUTPUTS, opset_version=17, dynamo=False,
                dynamic_axes={"input_ids": {0: "B", 1: "T"}, "attention_mask": {0: "B", 1: "T"}, "marker_pos": {0: "B", 1: "K"},
                              "marker_mask": {0: "B", 1: "K"}, "qtype": {0: "B"}, "logits": {0: "B", 1: "K"}, "act_logits": {0: "B"}},
            )
    finally:
        exporter._model_to_graph = to_graph
    if not weights:
        raise RuntimeError("torch.onnx.export did not hand its weights to _model_to_graph (torch's exporter changed?)")
    return path, weights


def write_weights(path: Path, weights: dict, external_mb: int) -> None:
    """The weights into the exported graph, one tensor at a time from the model's own memory: into one
    external-data file next to it (`model.onnx.data`, which onnxruntime maps) when they exceed `external_mb`,
    else appended to the graph's own file. `weights` is emptied as it goes, so a caller that dropped the
    model frees each tensor once it is written.

    Appended, because the protobuf encoding lets a message be written in parts: a ModelProto followed by
    further `graph` fields, each holding one `initializer`, parses as one graph with all of them (embedded
    messages of a repeated field number are merged); each tensor's bytes go straight from its array to the
    file after a hand-framed `raw_data` field, where onnx.save_model would first copy every weight into the
    protobuf and then into its serialised bytes."""
    import onnx
    from onnx import helper

    model = onnx.load(str(path))
    names = [i.name for i in model.graph.input if i.name in weights]
    inputs = [i for i in model.graph.input if i.name not in weights]
    del model.graph.input[:]
    model.graph.input.extend(inputs)
    total = sum(weights[n].numel() * weights[n].element_size() for n in names)
    external = total > external_mb * 1024 * 1024
    data = path.with_name(path.name + ".data") if external else path
    done = 0
    with open(data, "wb") as f:
        if not external:
            f.write(model.SerializeToString())
        for name in names:
            arr = weights.pop(name).detach().contiguous().numpy()
            tensor = onnx.TensorProto(name=name, data_type=helper.np_dtype_to_tensor_dtype(arr.dtype), dims=list(arr.shape))
            if external and arr.nbytes >= 1024:  # onnx.save_model's size_threshold
                tensor.data_location = onnx.TensorProto.EXTERNAL
                for key, value in (("location", data.name), ("offset", f.tell()), ("length", arr.nbytes)):
                    tensor.external_data.add(key=key, value=str(value))
                arr.tofile(f)
                model.graph.initializer.append(tensor)
            elif external:
                tensor.raw_data = arr.tobytes()
                model.graph.initializer.append(tensor)
            else:
                head = tensor.SerializeToString()
                raw = field(onnx.TensorProto, "raw_data", arr.nbytes)
                size = len(head) + len(raw) + arr.nbytes
                initializer = field(onnx.GraphProto, "initializer", size)
                f.write(field(onnx.ModelProto, "graph", len(initializer) + size) + initializer + head + raw)
                arr.tofile(f)
            done += arr.nbytes
            del arr
            progress(done, total, "bytes")
    if external:
        onnx.save_model(model, str(path))


def field(message, name: str, length: int) -> bytes:
    """The key and length of a length-delimited protobuf field (wire type 2) of `message` named `name`."""
    def varint(n: int) -> bytes:
        out = bytearray()
        while True:
            out.append((n & 0x7F) | (0x80 if n > 0x7F else 0))
            n >>= 7
            if not n:
                return bytes(out)

    return varint(message.DESCRIPTOR.fields_by_name[name].number << 3 | 2) + varint(length)


def main() -> int:
    ap = converter_args(__doc__)
    ap.add_argument("--int8", action="store_true", help="also write model.int8.onnx and report its agreement with laya")
    ap.add_argument("--int8-rows", type=int, default=200)
    a = ap.parse_args()
    return run_converter(lambda: convert(a), a.verbose)


def convert(a) -> int:
    src, out = Path(a.src).resolve(), Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    tmp = private_tmp(out)
    step("reading the checkpoint")
    cfg, enc, family, tensors = read_checkpoint(src)
    step("loading it with laya")
    check_tensors(src, cfg, enc, tensors)
    cautions = temperature_warnings(cfg)
    for w in cautions:
        warn(w)
    agent, shadow = load_agent(src, out)
    tok = agent.tok
    import laya

    facts = {
        "format": "laya-import/2",
        "laya_version": getattr(laya, "__version__", None),
        "encoder": cfg.get("encoder"),
        # mmBERT is a ModernBERT with a 256k-token vocabulary
        "encoder_family": "mmbert" if int(enc.get("vocab_size", 0)) > 200000 or "mmbert" in str(cfg.get("encoder", "")).lower() else family,
        "option_layout": "parallel" if agent.parallel_options else "sequential",
        "max_len": cfg.get("max_len", 512),
        "head_max_len": cfg.get("head_max_len", 192),
        "special_tokens": {"cls": tok.cls_token, "sep": tok.sep_token, "mask": tok.mask_token, "pad": tok.pad_token},
        "special_ids": {"cls": tok.cls_token_id, "sep": tok.sep_token_id, "mask": tok.mask_token_id, "pad": tok.pad_token_id},
        # what laya applies (clamped, non-numbers replaced): the manifest's table; the config's own values beside it
        "temperature_table": {t: {b: float(agent.temperature_by_options.get(f"{t}:{b}", agent.temperature[i])) for b in BUCKETS[t]}
                              for i, t in enumerate(QTYPES)},
        "temperature": cfg.get("temperature"),
        "temperature_by_options": cfg.get("temperature_by_options"),
        "warnings": cautions,
    }
    checks, int8_rows = [], []
    if a.check_rows > 0:
        step(f"laya's own answers to {a.check_rows} check rows")
        items, collate = sample_rows(agent, a.check_rows, a.seed)
        checks = laya_references(agent, items, collate)
    if a.int8:
        step(f"laya's own answers to {a.int8_rows} int8 check rows")
        items, collate = sample_rows(agent, a.int8_rows, a.seed + 1)
        int8_rows = laya_references(agent, items, collate)
    pad_id = tok.pad_token_id
    step("exporting the graph")
    path, weights = export(agent, out)
    del agent, tok
    gc.collect()  # the model's tensors now live only in `weights`, each freed once written
    step("writing the weights")
    write_weights(path, weights, a.external_data_mb)
    del weights
    gc.collect()
    shutil.copyfile(src / "tokenizer" / "tokenizer.json", out / "tokenizer.json")
    shutil.rmtree(shadow)
    worst = worst_p = None
    if checks:
        step(f"checking the graph against laya ({a.check_rows} rows, 8 per run)")
        worst, worst_p = check(path, checks)
        if worst_p > 1e-4:
            raise Refused(f"the exported graph's probabilities disagree with laya's forward by {worst_p:.2e} (> 1e-4) "
                          f"on its {a.check_rows} check rows (logits by {worst:.2e})")
    int8 = None
    if a.int8:
        step("quantising to int8")
        int8 = quantize(out, int8_rows, collate, pad_id, (out / "model.onnx.data").exists())
    shutil.rmtree(tmp, ignore_errors=True)
    facts["check"] = {"rows": a.check_rows, "max_abs_logit_diff": worst, "max_abs_prob_diff": worst_p}
    facts["int8"] = int8
    facts["files"] = sorted(f.name for f in out.iterdir() if not f.name.startswith("."))
    return write_facts(out, "laya_import.json", facts)


if __name__ == "__main__":
    sys.exit(main())
