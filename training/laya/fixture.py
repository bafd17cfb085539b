"""Build a small Laya checkpoint folder with random weights, exactly as the `laya` package saves one.

    python training/laya/fixture.py --out DIR --family modernbert|mmbert [--layout sequential|parallel] [--seed N]

For the import tests (issue 22): `laya.common.build_model` + `laya.train.save_checkpoint`, the package's
own classes and writer, with a ModernBERT-shaped encoder (English byte-level BPE tokenizer, `[CLS]`
`[SEP]` `[MASK]` `[PAD]`, window 512) or an mmBERT-shaped one (Gemma-style byte-fallback BPE over many
scripts, `<bos>` `<eos>` `<mask>` `<pad>`, window 1024). The tokenizers are trained here on a small
built-in corpus (no downloads); the weights are random. FIXTURE: proves the format, not quality.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")

import torch  # noqa: E402

HERE = Path(__file__).resolve().parent
LOGIT_SCALE = 20.0
QK_SCALE = 1.5

ENGLISH = """the quick brown fox jumps over the lazy dog while the customer asks for a refund of the order
please cancel my subscription because the service was slow and the support team never answered
the invoice number is missing and the payment failed twice yesterday at the store near the station
is the user angry about the delivery or happy with the product quality and the price of the plan
choose the best category for this ticket billing shipping technical account security other
score the urgency from low to high given the message and the history of the conversation so far
does the statement hold true the contract was signed on monday and the goods arrived on friday
weather report rain snow sunny cloudy wind temperature degrees celsius forecast tomorrow morning
json object key value list number string boolean null true false name email phone address city
""" * 3

MULTI = ENGLISH + """
Пожалуйста, отмените мой заказ, потому что доставка задерживается уже неделю и никто не отвечает
Η παράδοση καθυστέρησε και ο πελάτης ζητά επιστροφή χρημάτων για την παραγγελία του
الطلب تأخر كثيرا والعميل يطلب استرداد المبلغ بسرعة من فضلك أجب على الرسالة
ग्राहक अपने ऑर्डर की देरी से नाराज़ है और पैसे वापस चाहता है कृपया जल्दी जवाब दें
顾客对订单延迟很不满意，要求退款，请尽快回复这封邮件并说明原因
お客様は注文の遅れに不満を持っており、返金を求めています。すぐに返信してください
고객이 주문 지연에 불만을 갖고 환불을 요청하고 있습니다 빨리 답변해 주세요
ลูกค้าไม่พอใจกับการจัดส่งที่ล่าช้าและต้องการเงินคืน กรุณาตอบกลับโดยเร็ว
Der Kunde möchte eine Rückerstattung, weil die Lieferung verspätet ist. ¿Dónde está mi pedido?
"""


def english_tokenizer():
    """ModernBERT's shape: byte-level BPE, NFC, `[CLS] $A [SEP]`, `[MASK]` with lstrip (as ModernBERT's)."""
    from tokenizers import AddedToken, Tokenizer, decoders, models, normalizers, pre_tokenizers, processors, trainers
    from transformers import PreTrainedTokenizerFast

    specials = ["[UNK]", "[CLS]", "[SEP]", "[PAD]", "[MASK]"]
    tok = Tokenizer(models.BPE())
    tok.normalizer = normalizers.NFC()
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=1200, special_tokens=specials, show_progress=False,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    tok.train_from_iterator(ENGLISH.split("\n"), trainer)
    tok.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B [SEP]",
        special_tokens=[("[CLS]", tok.token_to_id("[CLS]")), ("[SEP]", tok.token_to_id("[SEP]"))])
    tok.add_special_tokens([AddedToken("[MASK]", lstrip=True, normalized=False)])
    return PreTrainedTokenizerFast(tokenizer_object=tok, unk_token="[UNK]", cls_token="[CLS]", sep_token="[SEP]",
                                   pad_token="[PAD]", mask_token="[MASK]", model_max_length=8192)


def multilingual_tokenizer():
    """mmBERT's shape (Gemma tokenizer): spaces → '▁', BPE with byte fallback, `<bos>`/`<eos>`/`<mask>`/`<pad>`."""
    from tokenizers import Tokenizer, decoders, models, normalizers, processors, trainers
    from transformers import PreTrainedTokenizerFast

    specials = ["<pad>", "<eos>", "<bos>", "<unk>", "<mask>"]
    trained = Tokenizer(models.BPE(unk_token="<unk>"))
    trained.normalizer = normalizers.Replace(" ", "▁")
    trainer = trainers.BpeTrainer(vocab_size=1800, special_tokens=specials, show_progress=False)
    trained.train_from_iterator([s for s in MULTI.split("\n") if s], trainer)
    spec = json.loads(trained.to_str())
    learned = spec["model"]["vocab"]
    # Byte pieces <0x00>..<0xFF> right after the specials, as in Gemma's vocabulary: anything unseen falls back to bytes.
    vocab = {t: i for i, t in enumerate(specials)}
    for b in range(256):
        vocab["<0x%02X>" % b] = len(vocab)
    for t, _ in sorted(learned.items(), key=lambda kv: kv[1]):
        if t not in vocab:
            vocab[t] = len(vocab)
    merges = [tuple(m.split(" ")) if isinstance(m, str) else tuple(m) for m in spec["model"]["merges"]]
    tok = Tokenizer(models.BPE(vocab=vocab, merges=merges, unk_token="<unk>", byte_fallback=True, fuse_unk=True))
    tok.normalizer = normalizers.Replace(" ", "▁")
    tok.decoder = decoders.Sequence([decoders.Replace("▁", " "), decoders.ByteFallback(), decoders.Fuse()])
    tok.add_special_tokens(specials)
    tok.post_processor = processors.TemplateProcessing(
        single="<bos> $A <eos>", pair="<bos> $A <eos> $B <eos>",
        special_tokens=[("<bos>", vocab["<bos>"]), ("<eos>", vocab["<eos>"])])
    return PreTrainedTokenizerFast(tokenizer_object=tok, unk_token="<unk>", cls_token="<bos>", sep_token="<eos>",
                                   bos_token="<bos>", eos_token="<eos>", pad_token="<pad>", mask_token="<mask>",
                                   model_max_length=8192)


# Real encoder shapes (random weights) for memory and speed measurements: (hidden, layers, heads, ffn, vocab, window).
SHAPES = {
    "small": (64, 4, 4, 96, None, 32),
    "modernbert-base": (768, 22, 12, 1152, 50368, 128),
    "modernbert-large": (1024, 28, 16, 2624, 50368, 128),
    "mmbert-base": (768, 22, 12, 1152, 256000, 128),
}


def build(out: Path, family: str, layout: str, seed: int, shape: str = "small") -> None:
    from laya.common import build_model
    from laya.train import save_checkpoint
    from transformers import ModernBertConfig

    torch.manual_seed(seed)
    random.seed(seed)
    tok = english_tokenizer() if family == "modernbert" else multilingual_tokenizer()
    # Small shapes with the real families' structure: GLU MLP, RoPE, every third layer global, the
    # rest local (a short window here so the tests' longer rows cross it).
    hidden, layers, heads, ffn, vocab, local = SHAPES[shape]
    ecfg = ModernBertConfig(
        vocab_size=max(len(tok), vocab or 0), hidden_size=hidden, intermediate_size=ffn, num_hidden_layers=layers,
        num_attention_heads=heads, local_attention=local, global_attn_every_n_layers=3, max_position_embeddings=8192,
        pad_token_id=tok.pad_token_id, cls_token_id=tok.cls_token_id, sep_token_id=tok.sep_token_id,
        bos_token_id=tok.cls_token_id, eos_token_id=tok.sep_token_id,
        rope_parameters=({"full_attention": {"rope_type": "default", "rope_theta": 160000.0},
                          "sliding_attention": {"rope_type": "default", "rope_theta": 160000.0 if family == "mmbert" else 10000.0}}),
    )
    work = out.parent / (out.name + ".encoder-tmp")
    ecfg.save_pretrained(work)
    cfg = {
        "encoder": "answerdotai/ModernBERT-large" if family == "modernbert" else "jhu-clsp/mmBERT-base",
        "head_layers": 2,
        "act_costs": {"answer": 0.0},
        "max_len": 512 if family == "modernbert" else 1024,
        "head_max_len": 192,
        "temperature": [1.3, 0.8, 1.7],
        "temperature_by_options": {"choice:2": 1.1, "choice:3-5": 1.6, "choice:11+": 0.1006, "score:6-10": 2.2, "noul:2": 0.9},
    }
    if layout == "parallel":
        cfg["option_layout"] = "parallel"
    model = build_model(cfg, encoder_dir=str(work), pretrained=False)
    # build_model skips initialisation (the checkpoint is expected to fill every parameter): draw them here.
    with torch.no_grad():
        for name, p in model.named_parameters():
            if p.dim() >= 2:
                std = 1.0 if "embeddings" in name else 1.0 / p.shape[-1] ** 0.5
                # Sharper attention than a plain random init: positions and neighbours then matter.
                if "Wqkv" in name or "in_proj" in name:
                    std *= QK_SCALE
                p.copy_(torch.randn_like(p) * std)
            elif "norm" in name and name.endswith("weight"):
                p.copy_(1.0 + 0.1 * torch.randn_like(p))
            else:
                p.copy_(0.1 * torch.randn_like(p))
        model.temperature.fill_(1.0)
        # Spread the option logits (std ≈ 2 over random rows) so the probabilities are far from uniform
        # and a wrong token, position or mask shows in them.
        model.scorer[-1].weight.mul_(LOGIT_SCALE)
    save_checkpoint(model, tok, cfg, str(out))
    import shutil
    shutil.rmtree(work, ignore_errors=True)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True)
    ap.add_argument("--family", choices=["modernbert", "mmbert"], required=True)
    ap.add_argument("--layout", choices=["sequential", "parallel"], default="sequential")
    ap.add_argument("--seed", type=int, default=20261125)
    ap.add_argument("--shape", choices=sorted(SHAPES), default="small",
                    help="encoder shape; the real ones (random weights) are for memory and speed measurements")
    a = ap.parse_args()
    build(Path(a.out), a.family, a.layout, a.seed, a.shape)
    print(a.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
