"""Shortcut probes for the hand-written dev nouls (issue 19): can anything short of reading the text beat chance?

    python training/noul_probes.py                 # English hand-written dev nouls, prints ROC AUC per probe
    python training/noul_probes.py --no-encoder    # the lexical probes only (no torch)

Each probe scores a noul without a trained model and is ranked against the answers (ROC AUC; 0.5 is chance):

- ``content_overlap``: share of the statement's content words that occur in the state;
- ``number_overlap``: the same for its numbers (a changed amount or date would be missing from the state);
- ``relevance_whole``: cosine of the statement's and the state's MiniLM sentence embeddings (mean pooling,
  as all-MiniLM-L6-v2 was trained), the "does the text talk about this" signal a topic model learns;
- ``relevance_best_chunk``: the best cosine over the state's sentences / JSON elements.

If a probe is far from 0.5 the set has a shortcut a model could learn instead of the skill; if all sit at
0.5, only a model that checks the statement against the text can score there (docs/quality.md). Reads the
screened dev split (``training/corpus/screen.py``), never the evaluation set.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

STOP = frozenset(
    "the a an is are was were be been has have had does do did of to in on for and or not no with by at it "
    "this that any from as its their his her they he she".split()
)
_TOKEN = re.compile(r"[a-z0-9]+(?:[.,][0-9]+)*")
_CHUNK = re.compile(r"(?<=[.!?])\s+|\n+|(?<=[}\]]),")


def state_text(state) -> str:
    return state if isinstance(state, str) else json.dumps(state, ensure_ascii=False)


def tokens(text: str) -> list[str]:
    return _TOKEN.findall(text.lower())


def overlap(statement: str, state: str, numbers_only: bool = False) -> float:
    """Share of the statement's content tokens (or numbers) found in the state; 1.0 when it has none."""
    seen = set(tokens(state))
    words = [t for t in tokens(statement) if t not in STOP and (not numbers_only or t[0].isdigit())]
    return sum(t in seen for t in words) / len(words) if words else 1.0


def chunks(state: str) -> list[str]:
    parts = [p.strip() for p in _CHUNK.split(state) if len(p.strip()) > 3]
    return parts or [state]


def roc_auc(labels: list[int], scores: list[float]) -> float:
    """P(score of a random positive > score of a random negative), ties 1/2 (as the eval report's)."""
    pos = [s for s, y in zip(scores, labels) if y]
    neg = [s for s, y in zip(scores, labels) if not y]
    if not pos or not neg:
        return float("nan")
    wins = sum((p > n) + 0.5 * (p == n) for p in pos for n in neg)
    return wins / (len(pos) * len(neg))


def handwritten_nouls(items: list[dict], lang: str = "en") -> list[dict]:
    return [it for it in items if it.get("difficulty") == "handwritten" and it["lang"] == lang
            and it["question"]["type"] == "noul"]


def lexical_scores(rows: list[dict]) -> dict[str, list[float]]:
    return {
        "content_overlap": [overlap(r["question"]["instructions"], state_text(r["state"])) for r in rows],
        "number_overlap": [overlap(r["question"]["instructions"], state_text(r["state"]), True) for r in rows],
    }


def relevance_scores(rows: list[dict], threads: int) -> dict[str, list[float]]:
    import torch
    from tokenizers import Tokenizer

    from backbones import load_backbone

    torch.set_num_threads(threads)
    model, tokenizer_json, _ = load_backbone("minilm-l6-en")
    tok = Tokenizer.from_file(str(tokenizer_json))
    tok.enable_truncation(256)

    def embed(texts: list[str]):
        out = []
        for i in range(0, len(texts), 32):
            encs = tok.encode_batch(texts[i:i + 32])
            width = max(len(e.ids) for e in encs)
            ids = torch.tensor([e.ids + [0] * (width - len(e.ids)) for e in encs])
            mask = torch.tensor([[1] * len(e.ids) + [0] * (width - len(e.ids)) for e in encs])
            with torch.no_grad():
                h = model(input_ids=ids, attention_mask=mask).last_hidden_state
            pooled = (h * mask[..., None]).sum(1) / mask.sum(1, keepdim=True)
            out.append(torch.nn.functional.normalize(pooled, dim=-1))
        return torch.cat(out)

    q = embed([r["question"]["instructions"] for r in rows])
    whole = embed([state_text(r["state"]) for r in rows])
    best = [float((embed(chunks(state_text(r["state"]))) @ q[i]).max()) for i, r in enumerate(rows)]
    return {"relevance_whole": (q * whole).sum(1).tolist(), "relevance_best_chunk": best}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--split", default="dev", choices=["dev", "train"])
    ap.add_argument("--lang", default="en")
    ap.add_argument("--no-encoder", action="store_true", help="lexical probes only")
    ap.add_argument("--threads", type=int, default=1)
    args = ap.parse_args(argv)
    from train import load_split

    rows = handwritten_nouls(load_split(args.split), args.lang)
    labels = [int(r["answer"]) for r in rows]
    scores = lexical_scores(rows)
    if not args.no_encoder:
        scores.update(relevance_scores(rows, args.threads))
    print(f"{len(rows)} hand-written {args.lang} {args.split} nouls, {sum(labels)} true")
    for name, s in scores.items():
        print(f"{name:22s} ROC AUC {roc_auc(labels, s):.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
