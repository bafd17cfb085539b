"""Build a small Decima checkpoint folder with random weights, exactly as the `decima-ai` package saves one.

    python training/decima/fixture.py --out DIR [--variant v1|v0] [--seed N]

For the import tests (issue 22, the second family): `decima.model.DecimaModel` + `DecimaModel.save`, the
package's own classes and writer (encoder/ via save_pretrained, head.safetensors, decima.json), with the
tokenizer saved into encoder/ where `decima.model.Decima` loads it from. The encoder has e5-small's shape
(a BERT body with an XLM-R-style tokenizer: SentencePiece-like Unigram, `<s>` `</s>` `<pad>` `<mask>`), small.
`v1`: question in the state and in the choices, options kept whole (`choice_fit`, models from 2026-10-05);
`v0`: the question only on the choice side, right-hand cut (the original defaults). The tokenizer is trained
here on a small built-in corpus (no downloads); the weights are random. FIXTURE: proves the format, not quality.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")

import torch  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "laya"))
from fixture import MULTI  # noqa: E402  (the Laya fixtures' corpus: English and eight other scripts)

# Spread the option scores (std ≈ 2 over random rows) so the probabilities are far from uniform and a
# wrong token, position or mask shows in them.
SCORE_SCALE = 16.0


def tokenizer():
    """multilingual-e5's shape (XLM-R's tokenizer): NFKC, Metaspace '▁', Unigram, `<s> $A </s>`, `<mask>` lstrip."""
    from tokenizers import AddedToken, Regex, Tokenizer, decoders, models, normalizers, pre_tokenizers, processors, trainers
    from transformers import PreTrainedTokenizerFast

    specials = ["<s>", "<pad>", "</s>", "<unk>"]
    tok = Tokenizer(models.Unigram())
    tok.normalizer = normalizers.Sequence([normalizers.NFKC(), normalizers.Replace(Regex(" {2,}"), " ")])
    tok.pre_tokenizer = pre_tokenizers.Metaspace(replacement="▁", prepend_scheme="always")
    tok.decoder = decoders.Metaspace(replacement="▁", prepend_scheme="always")
    # every printable ASCII character is a piece, so prefixes, punctuation and JSON never read as <unk>
    alphabet = [chr(c) for c in range(33, 127)] + ["▁", "…", "—"]
    trainer = trainers.UnigramTrainer(vocab_size=1500, special_tokens=specials, unk_token="<unk>", show_progress=False,
                                      initial_alphabet=alphabet)
    tok.train_from_iterator([s for s in MULTI.split("\n") if s], trainer)
    tok.add_special_tokens([AddedToken("<mask>", lstrip=True, normalized=False)])
    tok.post_processor = processors.TemplateProcessing(
        single="<s> $A </s>", pair="<s> $A </s> </s> $B </s>",
        special_tokens=[("<s>", tok.token_to_id("<s>")), ("</s>", tok.token_to_id("</s>"))])
    return PreTrainedTokenizerFast(tokenizer_object=tok, bos_token="<s>", eos_token="</s>", cls_token="<s>", sep_token="</s>",
                                   unk_token="<unk>", pad_token="<pad>", mask_token="<mask>", model_max_length=512)


def build(out: Path, variant: str, seed: int) -> None:
    from decima.model import DecimaConfig, DecimaModel
    from transformers import BertConfig, BertModel

    torch.manual_seed(seed)
    tok = tokenizer()
    work = out.parent / (out.name + ".encoder-tmp")
    ecfg = BertConfig(vocab_size=len(tok), hidden_size=64, num_hidden_layers=2, num_attention_heads=4, intermediate_size=128,
                      max_position_embeddings=512, pad_token_id=tok.pad_token_id, hidden_dropout_prob=0.0,
                      attention_probs_dropout_prob=0.0)
    BertModel(ecfg, add_pooling_layer=False).save_pretrained(work)
    v1 = variant == "v1"
    cfg = DecimaConfig(backbone=str(work), scorer_layers=2, heads=4, ffn=128, dropout=0.0, max_state_tokens=256,
                       max_choice_tokens=48, temperature=1.3, question_in_state=v1, question_in_choices=True, choice_fit=v1)
    model = DecimaModel(cfg)
    with torch.no_grad():
        for name, p in model.named_parameters():
            if name in ("sim_scale", "sim_center"):
                continue  # the package's own starting values (20, 0.85)
            if p.dim() >= 2:
                std = 1.0 if "embeddings" in name else 1.0 / p.shape[-1] ** 0.5
                p.copy_(torch.randn_like(p) * std)
            elif "LayerNorm" in name or "norm" in name:
                p.copy_((1.0 + 0.1 * torch.randn_like(p)) if name.endswith("weight") else 0.1 * torch.randn_like(p))
            else:
                p.copy_(0.1 * torch.randn_like(p))
        model.score.weight.mul_(SCORE_SCALE)
        model.ord_gap.weight.mul_(2.0)
    model.cfg.backbone = "intfloat/multilingual-e5-small"   # what a trained checkpoint records (load replaces it with encoder/)
    model.save(out)
    tok.save_pretrained(out / "encoder")   # decima.model.Decima reads its tokenizer from encoder/
    shutil.rmtree(work, ignore_errors=True)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True)
    ap.add_argument("--variant", choices=["v1", "v0"], default="v1")
    ap.add_argument("--seed", type=int, default=20261201)
    a = ap.parse_args()
    build(Path(a.out), a.variant, a.seed)
    print(a.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
