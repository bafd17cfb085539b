"""Train a marker-head checkpoint on the screened corpus (issue 6). CPU only, deterministic.

    python training/train.py --backbone minilm-l6-en --langs en --out /tmp/train-en
    python training/train.py --backbone me5-small --langs multi --out /tmp/train-multi

Writes OUT/best.pt (state dict of the best dev epoch), OUT/train_config.json, OUT/log.jsonl and
OUT/dev_logits.jsonl (the best model's dev logits, read by calibrate.py). See docs/training.md.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import random
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import torch  # noqa: E402

import resume  # noqa: E402

from layout import Layout, answer_index  # noqa: E402
from model import SEED, build, collate, freeze, set_special_ids, special_tokens  # noqa: E402

CORPUS = HERE / "corpus" / "build"
WINDOW = 512

# Defaults per backbone, from step times measured on the 2-core machine (docs/training.md).
DEFAULTS = {
    "minilm-l6-en": {"freeze_layers": 0, "batch_tokens": 4096, "lr": 5e-5, "epochs": 10},
    "me5-small": {"freeze_layers": 4, "batch_tokens": 4096, "lr": 5e-5, "epochs": 6},
}
# What must be the same for --resume to go on with a saved run.
RESUME_MUST_MATCH = ("backbone", "langs", "seed", "head", "interact", "finetune_from", "freeze_layers", "batch_tokens",
                     "lr", "epochs", "max_steps", "planned_steps", "warmup_steps", "en_share", "train_rows",
                     "corpus_sha256", "vocab_size", "types", "extra", "cache_below", "corpus_rows")
# Fitting the segment head on a frozen encoder (the default): the settings that built checkpoints/.
HEAD_FIT_DEFAULTS = {
    "minilm-l6-en": {"lr": 1e-3, "epochs": 12},
    "me5-small": {"lr": 1e-3, "epochs": 8},
}


def corpus_hash(extra: list[Path] = ()) -> str:
    h = hashlib.sha256()
    for path in [CORPUS / "train.jsonl", CORPUS / "dev.jsonl", *extra]:
        h.update(path.read_bytes())
    return h.hexdigest()


def read_jsonl(path: Path) -> list[dict]:
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def parse_extra(spec: str) -> tuple[Path, int]:
    """``FILE`` or ``FILE:N`` (a seeded sample of N items of FILE)."""
    path, sep, n = spec.rpartition(":")
    return (Path(path), int(n)) if sep and n.isdigit() else (Path(spec), 0)


def extra_items(specs: list[str], seed: int) -> list[dict]:
    """Training items from outside the screened corpus (e.g. ``corpus/snli.py``'s build/snli.jsonl)."""
    out = []
    for spec in specs:
        path, n = parse_extra(spec)
        items = read_jsonl(path)
        if n and n < len(items):
            rng = random.Random(f"{seed}:{path.name}")
            items = [items[i] for i in sorted(rng.sample(range(len(items)), n))]
        out += items
    return out


def load_split(split: str) -> list[dict]:
    if not (CORPUS / f"{split}.jsonl").exists():
        subprocess.run([sys.executable, str(HERE / "corpus" / "screen.py")], check=True)
    return read_jsonl(CORPUS / f"{split}.jsonl")


def select(items: list[dict], langs: str, en_share: float, seed: int) -> list[dict]:
    """en: English items. multi: every non-English item plus English items making ``en_share`` of the mix."""
    if langs == "en":
        return [it for it in items if it["lang"] == "en"]
    other = [it for it in items if it["lang"] != "en"]
    en = [it for it in items if it["lang"] == "en"]
    n_en = min(len(en), round(len(other) * en_share / max(1e-9, 1 - en_share)))
    rng = random.Random(seed)
    pick = sorted(rng.sample(range(len(en)), n_en))
    return other + [en[i] for i in pick]


class Example:
    __slots__ = ("ids", "markers", "qtype", "label", "lang", "type", "n", "id", "handwritten")

    def __init__(self, row, label, item):
        self.ids, self.markers, self.qtype = row.ids, row.markers, row.qtype
        self.label, self.lang, self.type, self.n, self.id = label, item["lang"], item["question"]["type"], len(row.markers), item["id"]
        self.handwritten = item.get("difficulty") == "handwritten"


def build_examples(layout: Layout, items: list[dict]) -> tuple[list[Example], int]:
    out, skipped = [], 0
    for it in items:
        try:
            row = layout.item_row(it)
        except ValueError:
            skipped += 1
            continue
        out.append(Example(row, answer_index(it["question"], it["answer"]), it))
    return out, skipped


def batches(examples: list[Example], batch_tokens: int, seed: int, shuffle: bool = True) -> list[list[Example]]:
    """Length-bucketed batches: sort by length (ties in a seeded order), cut so rows x longest <= budget."""
    rng = random.Random(seed)
    keyed = sorted(examples, key=lambda e: (len(e.ids), rng.random() if shuffle else 0))
    out, cur, longest = [], [], 0
    for e in keyed:
        L = max(longest, len(e.ids))
        if cur and L * (len(cur) + 1) > batch_tokens:
            out.append(cur)
            cur, L = [], len(e.ids)
        cur.append(e)
        longest = L
    if cur:
        out.append(cur)
    if shuffle:
        rng.shuffle(out)
    return out


@torch.no_grad()
def per_example(model, examples: list[Example], pad_id: int, run, batch_tokens: int = 8192) -> list:
    """``run(collated batch, batch)`` gives one value per example of each length-sorted batch (model in
    eval mode, no gradient); the values come back in the order of ``examples``."""
    model.eval()
    res: dict[int, object] = {}
    index = {id(e): i for i, e in enumerate(examples)}
    for b in batches(examples, batch_tokens, 0, shuffle=False):
        for e, value in zip(b, run(collate(b, pad_id), b)):
            res[index[id(e)]] = value
    return [res[i] for i in range(len(examples))]


def predict(model, examples: list[Example], pad_id: int, logits_of=None) -> list[list[float]]:
    """Logits over each example's real markers, in the order of ``examples``; ``logits_of(b, batch)``
    computes a collated batch's logits (default: the whole model)."""
    def run(batch, b):
        logits = logits_of(b, batch) if logits_of else model(*batch)[0]
        return [row[: e.n] for e, row in zip(b, logits.tolist())]

    return per_example(model, examples, pad_id, run)


def noul_auc(examples: list[Example], logits: list[list[float]]) -> float | None:
    """ROC AUC of the noul rows' true-minus-false logit (ties count half); None without both answers.
    Accuracy at p = 0.5 hides a model that ranks well but sits on one side of the threshold."""
    rows = sorted((lg[1] - lg[0], e.label == 1) for e, lg in zip(examples, logits) if e.type == "noul")
    pos = sum(y for _, y in rows)
    neg = len(rows) - pos
    if not pos or not neg:
        return None
    rank_sum, i = 0.0, 0
    while i < len(rows):  # average ranks over ties
        j = i
        while j < len(rows) and rows[j][0] == rows[i][0]:
            j += 1
        rank_sum += sum(y for _, y in rows[i:j]) * (i + j + 1) / 2
        i = j
    return round((rank_sum - pos * (pos + 1) / 2) / (pos * neg), 4)


def accuracy(examples: list[Example], logits: list[list[float]]) -> dict:
    per = defaultdict(lambda: [0, 0])
    for e, lg in zip(examples, logits):
        ok = int(max(range(len(lg)), key=lg.__getitem__) == e.label)
        for k in ("all", e.type):
            per[k][0] += ok
            per[k][1] += 1
    out = {k: round(v[0] / v[1], 4) for k, v in sorted(per.items())} | {"n": per["all"][1]}
    auc = noul_auc(examples, logits)
    return out | ({"noul_auc": auc} if auc is not None else {})


def nll(examples, logits) -> float:
    tot = 0.0
    for e, lg in zip(examples, logits):
        t = torch.tensor(lg)
        tot += float(torch.logsumexp(t, 0) - t[e.label])
    return tot / max(1, len(examples))


def picks(args, e: Example) -> bool:
    """Whether dev row ``e`` counts when picking the best epoch (``--pick-on``)."""
    return args.pick_on == "all" or e.handwritten


def git_commit() -> str | None:
    try:
        return subprocess.run(["git", "rev-parse", "HEAD"], cwd=HERE, capture_output=True, text=True, check=True).stdout.strip()
    except Exception:
        return None


def setup_determinism(seed: int, threads: int) -> None:
    torch.manual_seed(seed)
    random.seed(seed)
    torch.set_num_threads(threads)
    torch.use_deterministic_algorithms(True, warn_only=True)


def warmup_linear(opt, planned: int, warmup: float):
    """Linear warmup over ``warmup`` of the planned steps, then linear decay to 0 at ``planned``."""
    warm = max(1, int(planned * warmup))
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda s: min((s + 1) / warm, max(0.0, (planned - s) / max(1, planned - warm))))
    return sched, warm


def write_dev_logits(path: Path, dev: list[Example], logits: list[list[float]]) -> None:
    """The best model's dev logits, one JSON line per dev row (read by calibrate.py)."""
    with open(path, "w", encoding="utf-8") as f:
        for e, row in zip(dev, logits):
            f.write(json.dumps({"id": e.id, "lang": e.lang, "type": e.type, "label": e.label, "logits": row,
                                "handwritten": e.handwritten}) + "\n")


def segment_vectors(model, examples: list[Example], pad_id: int):
    """Per example (q [H], options [K,H], s [H]) from the frozen encoder, in the order of ``examples``."""
    def run(batch, b):
        q, o, s = model.encode_segments(*batch[:4])
        return [(q[j].clone(), o[j, : e.n].clone(), s[j].clone()) for j, e in enumerate(b)]

    return per_example(model, examples, pad_id, run)


def stack_vectors(vecs, examples, idx):
    """Pad one minibatch of precomputed vectors to [B,K,H] with a marker mask."""
    k = max(examples[i].n for i in idx)
    h = vecs[idx[0]][0].numel()
    q = torch.stack([vecs[i][0] for i in idx])
    s = torch.stack([vecs[i][2] for i in idx])
    o = torch.zeros(len(idx), k, h)
    mm = torch.zeros(len(idx), k, dtype=torch.bool)
    for r, i in enumerate(idx):
        n = examples[i].n
        o[r, :n] = vecs[i][1]
        mm[r, :n] = True
    qt = torch.tensor([examples[i].qtype for i in idx])
    return q, o, s, mm, qt


def token_states(model, examples: list[Example], pad_id: int):
    """Per example (hidden [L,H] fp16, seg [L]) from the frozen encoder, for the interaction head."""
    def run(batch, b):
        hidden, seg, _ = model.encode_tokens(*batch[:4])
        return [(hidden[j, : len(e.ids)].to(torch.float16).clone(), seg[j, : len(e.ids)].to(torch.uint8).clone())
                for j, e in enumerate(b)]

    return per_example(model, examples, pad_id, run)


def lower_states(model, examples: list[Example], pad_id: int, layers: int) -> dict[int, torch.Tensor]:
    """``id(example)`` -> its token states [L,H] (fp16) below the trained layers (``--cache-below``)."""
    def run(batch, b):
        hidden = model.lower(batch[0], batch[1], layers)
        return [hidden[j, : len(e.ids)].to(torch.float16).clone() for j, e in enumerate(b)]

    return {id(e): h for e, h in zip(examples, per_example(model, examples, pad_id, run))}


def upper_logits(model, cache: dict[int, torch.Tensor], b: list[Example], batch, layers: int):
    """The model's logits for one batch (``b``, collated as ``batch``), from the cached lower states
    through the trained layers."""
    ids, att, pos, mm, qt = batch
    hidden = torch.zeros(ids.size(0), ids.size(1), cache[id(b[0])].size(1))
    for j, e in enumerate(b):
        hidden[j, : len(e.ids)] = cache[id(e)].float()
    return model.head_logits(model.upper(hidden, att, layers), ids, pos, mm, qt)[0]


def stack_tokens(states, examples, idx):
    """Right-pad one group of cached token states to [B,T,H] (seg, valid, marker mask, qtype alongside)."""
    t = max(states[i][0].size(0) for i in idx)
    k = max(examples[i].n for i in idx)
    h = states[idx[0]][0].size(1)
    hidden = torch.zeros(len(idx), t, h)
    seg = torch.zeros(len(idx), t, dtype=torch.long)
    valid = torch.zeros(len(idx), t, dtype=torch.bool)
    mm = torch.zeros(len(idx), k, dtype=torch.bool)
    for r, i in enumerate(idx):
        n = states[i][0].size(0)
        hidden[r, :n] = states[i][0].float()
        seg[r, :n] = states[i][1].long()
        valid[r, :n] = True
        mm[r, : examples[i].n] = True
    qt = torch.tensor([examples[i].qtype for i in idx])
    return hidden, seg, valid, mm, qt


def length_groups(examples: list[Example], budget: int, rng: random.Random | None) -> list[list[int]]:
    """Indices in length-sorted groups of at most ``budget`` padded tokens, groups shuffled when ``rng``."""
    index = {id(e): i for i, e in enumerate(examples)}
    seed = rng.random() if rng is not None else 0
    return [[index[id(e)] for e in b] for b in batches(examples, budget, seed, shuffle=rng is not None)]


def fit_segment_head(args, model, train: list[Example], dev: list[Example], pad: int, emit, t0) -> int:
    """Encode every example once with the frozen encoder, then fit the head on the vectors (AdamW,
    minibatches of 64, ``--epochs`` passes, dev accuracy after each; the best epoch is kept).
    With ``--interact`` the cache holds every token's state instead, and the head (segment head and
    interaction layers) is fitted on length-sorted groups of ``--batch-tokens`` padded tokens."""
    tokens = args.interact > 0
    encode = token_states if tokens else segment_vectors
    # the frozen encoder's output; reused by a re-run into OUT
    cache = args.out / ("token_states.pt" if tokens else "segment_vectors.pt")
    key = [corpus_hash(), args.backbone, len(train), len(dev)]
    cached = torch.load(cache) if cache.exists() else None
    if cached and cached["key"] == key:
        tv, dv = cached["train"], cached["dev"]
    else:
        tv = encode(model, train, pad)
        dv = encode(model, dev, pad)
        torch.save({"key": key, "train": tv, "dev": dv}, cache)
    if tokens:
        def vectors(i):  # the segment vectors, pooled from the cached token states
            h, seg = tv[i][0].float().unsqueeze(0), tv[i][1].long().unsqueeze(0)
            q, o, s, _ = model.pool(h, seg, torch.ones_like(seg, dtype=torch.bool), train[i].n)
            return q[0], o[0], s[0]

        def run(states, examples, idx):
            h, seg, valid, mm, qt = stack_tokens(states, examples, idx)
            return model.score_tokens(h, seg, valid, mm, qt)[0]

        def groups(examples, rng):
            return length_groups(examples, args.batch_tokens, rng)
    else:
        def vectors(i):
            return tv[i]

        def run(vecs, examples, idx):
            return model.score(*stack_vectors(vecs, examples, idx))

        def groups(examples, rng):
            order = list(range(len(examples)))
            if rng is not None:
                rng.shuffle(order)
            size = 64 if rng is not None else 256
            return [order[i : i + size] for i in range(0, len(order), size)]
    with torch.no_grad():
        vs = [vectors(i) for i in range(len(train))]
        model.center.copy_(torch.cat([torch.stack([v[0] for v in vs]), torch.cat([v[1] for v in vs]),
                                      torch.stack([v[2] for v in vs])]).mean(0))
        del vs
    emit({"encoded": True, "train_rows": len(train), "dev_rows": len(dev)})
    head = [p for n, p in model.named_parameters() if not n.startswith("encoder.")]
    opt = torch.optim.AdamW(head, lr=args.lr, weight_decay=0.01)
    per_epoch = len(groups(train, random.Random(args.seed)))
    planned = per_epoch * args.epochs
    sched, _ = warmup_linear(opt, planned, args.warmup)
    loss_f = torch.nn.CrossEntropyLoss()
    rng = random.Random(args.seed)

    def dev_logits():
        model.eval()
        res = {}
        with torch.no_grad():
            for idx in groups(dev, None):
                lg = run(dv, dev, idx)
                res.update({j: row[: dev[j].n] for j, row in zip(idx, lg.tolist())})
        model.train()
        return [res[j] for j in range(len(dev))]

    # The multilingual checkpoint answers every language but English (the router sends English to the
    # English checkpoint); its English dev rows are there for per-language calibration, so the best
    # epoch is picked on the other languages' rows.
    picked = [j for j, e in enumerate(dev) if (args.langs != "multi" or e.lang != "en") and picks(args, e)]
    best = {"acc": -1.0}
    step = 0
    model.train()
    for epoch in range(args.epochs):
        total = 0.0
        for idx in groups(train, rng):
            loss = loss_f(run(tv, train, idx), torch.tensor([train[j].label for j in idx]))
            opt.zero_grad(set_to_none=True)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(head, 1.0)
            opt.step()
            sched.step()
            step += 1
            total += float(loss) * len(idx)
        lg = dev_logits()
        acc = accuracy(dev, lg)
        picked_acc = accuracy([dev[j] for j in picked], [lg[j] for j in picked])["all"]
        rec = {"eval": True, "epoch": epoch, "step": step, "train_loss": round(total / len(train), 4),
               "dev_acc": acc, "dev_nll": round(nll(dev, lg), 4), "picked_on": picked_acc}
        if picked_acc > best["acc"]:
            best.update(acc=picked_acc, epoch=epoch, step=step)
            torch.save(model.state_dict(), args.out / "best.pt")
            rec["best"] = True
        emit(rec)
    model.load_state_dict(torch.load(args.out / "best.pt"))
    lg = dev_logits()
    write_dev_logits(args.out / "dev_logits.jsonl", dev, lg)
    summary = {"done": True, "steps": step, "best": best, "dev_acc_full": accuracy(dev, lg),
               "by_language": {lang: accuracy([e for e in dev if e.lang == lang], [r for e, r in zip(dev, lg) if e.lang == lang])
                               for lang in sorted({e.lang for e in dev})},
               "seconds": round(time.perf_counter() - t0, 1)}
    emit(summary)
    (args.out / "summary.json").write_text(json.dumps(summary, indent=1))
    return 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--backbone", required=True, choices=sorted(DEFAULTS))
    ap.add_argument("--langs", required=True, choices=["en", "multi"])
    ap.add_argument("--out", required=True, type=Path)
    ap.add_argument("--max-minutes", type=float, default=None, help="stop training after this wall time")
    ap.add_argument("--epochs", type=int, default=None)
    ap.add_argument("--max-steps", type=int, default=None, help="plan the LR schedule for this many steps and stop there")
    ap.add_argument("--freeze-layers", type=int, default=None)
    ap.add_argument("--batch-tokens", type=int, default=None, help="rows x longest row per batch")
    ap.add_argument("--lr", type=float, default=None, help="encoder learning rate (head: 20x)")
    ap.add_argument("--warmup", type=float, default=0.06, help="share of planned steps")
    ap.add_argument("--en-share", type=float, default=0.3, help="multi: English share of the mix")
    ap.add_argument("--eval-every", type=int, default=0, help="also evaluate every N steps (0: per epoch only)")
    ap.add_argument("--dev-limit", type=int, default=0, help="evaluate on every k-th dev item to keep N (0: all)")
    ap.add_argument("--prune-vocab", choices=["auto", "yes", "no"], default="auto",
                    help="prune the vocabulary before training (auto: for me5-small); see training/vocab.py")
    ap.add_argument("--head", choices=["segment", "span", "marker"], default="segment",
                    help="segment: question, options and state encoded apart, head fitted on the frozen encoder; "
                         "span: mask token + mean of the option's tokens; marker: mask token only")
    ap.add_argument("--finetune-from", type=Path, default=None,
                    help="segment head: start from RUN/best.pt (a fitted head) and fine-tune the encoder too")
    ap.add_argument("--interact", type=int, default=0,
                    help="segment head: add N late-interaction layers over the frozen encoder's token states (0: none)")
    ap.add_argument("--resume", action="store_true",
                    help="go on from OUT/resume.pt (written every --save-every-minutes, at each epoch end and at the deadline)")
    ap.add_argument("--save-every-minutes", type=float, default=10.0)
    ap.add_argument("--cache-below", type=int, default=0, metavar="N",
                    help="span/marker heads: freeze the embeddings and the lowest N encoder layers and compute their "
                         "token states once (OUT/lower_states.pt); each step then runs only the layers above")
    ap.add_argument("--pick-on", choices=["all", "handwritten"], default="all",
                    help="dev rows the best epoch is picked on: all, or the hand-written ones only (the template "
                         "rows share generators with training and overrate a model that learned the templates)")
    ap.add_argument("--corpus-rows", choices=["all", "handwritten"], default="all",
                    help="corpus training items to use: all, or the hand-written ones only (with --extra)")
    ap.add_argument("--types", default="choice,noul,score",
                    help="question types to train and pick the best epoch on (comma-separated)")
    ap.add_argument("--extra", action="append", default=[], metavar="FILE[:N]",
                    help="more training items (JSONL, the corpus format), all or a seeded sample of N; repeatable")
    ap.add_argument("--seed", type=int, default=SEED)
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args(argv)
    d = DEFAULTS[args.backbone]
    if args.head == "segment" and not args.finetune_from:
        d = {**d, **HEAD_FIT_DEFAULTS[args.backbone]}
    for k in ("freeze_layers", "batch_tokens", "lr", "epochs"):
        if getattr(args, k) is None:
            setattr(args, k, d[k])
    args.out.mkdir(parents=True, exist_ok=True)
    setup_determinism(args.seed, args.threads)

    if args.interact and (args.head != "segment" or args.finetune_from):
        ap.error("--interact needs --head segment without --finetune-from")
    model, tj, cfg = build(args.backbone, args.seed, args.head, args.interact)
    specials = special_tokens(cfg)
    types = set(args.types.split(","))
    if not types <= {"choice", "noul", "score"}:
        ap.error(f"--types: unknown {sorted(types - {'choice', 'noul', 'score'})}")
    args.types = ",".join(sorted(types))
    corpus = [it for it in load_split("train") if args.corpus_rows == "all" or it.get("difficulty") == "handwritten"]
    train_items = select(corpus, args.langs, args.en_share, args.seed) + extra_items(args.extra, args.seed)
    train_items = [it for it in train_items if it["question"]["type"] in types]
    dev_all = load_split("dev")  # multi: every dev item (English too), so calibration sees all languages
    dev_items = [it for it in dev_all if it["lang"] == "en"] if args.langs == "en" else dev_all
    dev_items = [it for it in dev_items if it["question"]["type"] in types]
    prune = args.prune_vocab == "yes" or (args.prune_vocab == "auto" and args.backbone == "me5-small")
    vocab_stats = None
    if prune:  # train and serve with the same pruned tokenizer (training/vocab.py)
        import vocab

        tj, kept, vocab_stats = vocab.prune_for_training(tj, load_split("train") + dev_all, specials["mask"], args.out)
        vocab.apply_to_model(model, kept)
        print(json.dumps({"vocab_pruning": vocab_stats}, ensure_ascii=False), flush=True)
    else:
        import shutil

        shutil.copyfile(tj, args.out / "tokenizer.json")
    if args.finetune_from:
        if args.head != "segment":
            ap.error("--finetune-from needs --head segment")
        model.load_state_dict(torch.load(args.finetune_from / "best.pt"))
    elif args.head == "segment":  # the encoder stays frozen: the head is fitted on precomputed segment vectors
        args.freeze_layers = len(model.encoder.encoder.layer)
        for p in model.encoder.parameters():
            p.requires_grad_(False)
    if args.cache_below:
        if args.head == "segment":
            ap.error("--cache-below needs --head span or marker")
        args.freeze_layers = args.cache_below
    counts = freeze(model, args.freeze_layers)
    layout = Layout(tj, specials, WINDOW)
    set_special_ids(model, layout.sep, layout.mask)
    pad = layout.pad
    train, skipped_train = build_examples(layout, train_items)
    dev, skipped_dev = build_examples(layout, dev_items)
    dev_eval = dev
    if args.dev_limit and len(dev) > args.dev_limit:  # every picked row, and every k-th of the others
        kept, rest = ([e for e in dev if picks(args, e)], [e for e in dev if not picks(args, e)]) \
            if args.pick_on != "all" else ([], dev)
        n = max(0, args.dev_limit - len(kept))
        dev_eval = kept + [rest[int(i * len(rest) / n)] for i in range(min(n, len(rest)))]
    per_epoch = len(batches(train, args.batch_tokens, args.seed))
    planned = args.max_steps or per_epoch * args.epochs
    enc_params = [p for n, p in model.named_parameters() if p.requires_grad and n.startswith("encoder.")]
    head_params = [p for n, p in model.named_parameters() if p.requires_grad and not n.startswith("encoder.")]
    opt = torch.optim.AdamW([{"params": enc_params, "lr": args.lr}, {"params": head_params, "lr": args.lr * 20}],
                            weight_decay=0.01)
    sched, warm = warmup_linear(opt, planned, args.warmup)
    config = {
        "backbone": args.backbone, "langs": args.langs, "seed": args.seed, "window": WINDOW,
        "head": args.head, "interact": args.interact, "finetune_from": str(args.finetune_from) if args.finetune_from else None, "freeze_layers": args.freeze_layers, "batch_tokens": args.batch_tokens, "lr": args.lr,
        "epochs": args.epochs, "max_steps": args.max_steps, "max_minutes": args.max_minutes,
        "planned_steps": planned, "steps_per_epoch": per_epoch, "warmup_steps": warm, "en_share": args.en_share,
        "train_rows": len(train), "train_skipped_overlong": skipped_train, "dev_rows": len(dev),
        "dev_eval_rows": len(dev_eval), "dev_skipped_overlong": skipped_dev, **counts,
        "train_tokens": sum(len(e.ids) for e in train), "special_tokens": specials,
        "vocab_pruned": prune, "vocab_size": model.encoder.embeddings.word_embeddings.num_embeddings,
        "types": args.types, "extra": args.extra, "cache_below": args.cache_below, "pick_on": args.pick_on,
        "corpus_rows": args.corpus_rows,
        "corpus_sha256": corpus_hash([parse_extra(e)[0] for e in args.extra]), "git_commit": git_commit(), "threads": args.threads,
        "backbone_package": cfg["package"], "backbone_package_version": cfg["package_version"],
        "backbone_model": cfg["model"], "torch": torch.__version__,
    }
    if args.resume:  # the saved optimizer state only means something for the same run
        before = json.loads((args.out / "train_config.json").read_text())
        changed = {k: (before.get(k), config[k]) for k in RESUME_MUST_MATCH if before.get(k) != config[k]}
        if changed:
            ap.error(f"--resume: the run in {args.out} was started with other settings or data: {changed}")
    (args.out / "train_config.json").write_text(json.dumps(config, indent=1))
    print(json.dumps(config), flush=True)
    log = open(args.out / "log.jsonl", "a", encoding="utf-8")

    def emit(rec):
        rec["elapsed_s"] = round(time.perf_counter() - t0, 1)
        log.write(json.dumps(rec) + "\n")
        log.flush()
        print(json.dumps(rec), flush=True)

    best = {"acc": -1.0}
    t0 = time.perf_counter()
    if args.cache_below:  # the frozen lower layers' output, computed once; reused by a re-run into OUT
        cache_file = args.out / "lower_states.pt"
        key = [config["corpus_sha256"], args.backbone, args.types, args.cache_below, len(train), len(dev)]
        saved = torch.load(cache_file) if cache_file.exists() else None
        if saved and saved["key"] == key:
            states = {id(e): h for e, h in zip(train + dev, saved["states"])}
        else:
            states = lower_states(model, train + dev, pad, args.cache_below)
            torch.save({"key": key, "states": [states[id(e)] for e in train + dev]}, cache_file)
        emit({"cached_below": args.cache_below, "rows": len(states)})

        def logits_of(b, batch):
            return upper_logits(model, states, b, batch, args.cache_below)
    else:
        def logits_of(b, batch):
            return model(*batch)[0]

    def predict_rows(examples):
        return predict(model, examples, pad, logits_of)

    def evaluate(epoch, step):
        te = time.perf_counter()
        lg = predict_rows(dev_eval)
        acc = accuracy(dev_eval, lg)
        picked_acc = accuracy(*zip(*[(e, r) for e, r in zip(dev_eval, lg) if picks(args, e)]))["all"]
        rec = {"eval": True, "epoch": epoch, "step": step, "dev_acc": acc, "dev_nll": round(nll(dev_eval, lg), 4),
               "picked_on": picked_acc, "eval_s": round(time.perf_counter() - te, 1)}
        if picked_acc > best["acc"]:
            best.update(acc=picked_acc, epoch=epoch, step=step)
            torch.save(model.state_dict(), args.out / "best.pt")
            rec["best"] = True
        emit(rec)
        model.train()

    if args.head == "segment" and not args.finetune_from:
        return fit_segment_head(args, model, train, dev, pad, emit, t0)
    deadline = t0 + args.max_minutes * 60 if args.max_minutes else math.inf
    state_path = args.out / resume.STATE_FILE
    progress = resume.Progress(best=best)
    if args.resume:
        progress = resume.load_state(state_path, model, opt, sched)
        best.clear()
        best.update(progress.best)
        progress.best = best  # evaluate() updates it in place
        emit({"resumed": True, "epoch": progress.epoch, "batch": progress.batch, "step": progress.step})
    loss_f = torch.nn.CrossEntropyLoss()

    def step_loss(b):
        batch = collate(b, pad)
        return loss_f(logits_of(b, batch), torch.tensor([e.label for e in b])), batch[0].numel()

    complete = resume.run(model, opt, sched, epoch_batches=lambda e: batches(train, args.batch_tokens, args.seed + e),
                          step_loss=step_loss, epochs=args.epochs, planned=planned, progress=progress,
                          state_path=state_path, should_stop=lambda: time.perf_counter() >= deadline, save_every_s=args.save_every_minutes * 60,
                          eval_every=args.eval_every, evaluate=evaluate, emit=emit)
    step, tokens_done, train_s = progress.step, progress.tokens_done, progress.train_s
    if best.get("step") != step:
        evaluate(progress.epoch, step)
    # the best model's dev logits (all dev rows), for calibrate.py
    model.load_state_dict(torch.load(args.out / "best.pt"))
    lg = predict_rows(dev)
    write_dev_logits(args.out / "dev_logits.jsonl", dev, lg)
    summary = {"done": complete, "steps": step, "best": best, "dev_acc_full": accuracy(dev, lg),
               "train_s": round(train_s, 1), "train_tokens": tokens_done,
               "padded_tokens_per_s": round(tokens_done / max(1e-9, train_s), 1),
               "epoch_tokens": sum(len(x) * max(len(e.ids) for e in x) for x in batches(train, args.batch_tokens, args.seed))}
    summary["est_epoch_minutes"] = round(summary["epoch_tokens"] / summary["padded_tokens_per_s"] / 60, 1)
    emit(summary)
    (args.out / "summary.json").write_text(json.dumps(summary, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
