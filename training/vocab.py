"""Vocabulary pruning for the multilingual checkpoint (Unigram tokenizer.json + embedding rows).

multilingual-e5-small carries XLM-R's 250 002 pieces: 384 MB of its 470 MB fp32 graph is the word
embedding table. The service only ever sees text in the languages the corpus covers, so we keep

  1. every special / added token,
  2. every piece that tokenizing the training corpus (rendered exactly as the service renders it)
     produces,
  3. every piece that tokenizing a broad multilingual sample produces: the CLDR names ICU ships with
     Node (languages, regions, currencies, months, weekdays, relative times, list patterns in ~100
     locales, via ``Intl``; no download) and the repository's docs,
  4. every single-character piece (with or without the ``\u2581`` prefix), in every script (15 397 of
     XLM-R's pieces; CJK and Hangul are most of them), so unseen words, even in scripts the corpus does
     not cover (Greek, Thai, Ethiopic...), still segment into known pieces instead of ``<unk>``,

and rebuild a Unigram tokenizer.json over the kept pieces (same order, same scores, same normaliser and
pre-tokenizer) and the matching embedding rows. Text whose best segmentation uses only kept pieces
tokenizes exactly as before (Viterbi over a subset of pieces finds the same optimum); other text gets
the best segmentation from the kept pieces. ``check`` measures both on held-out text.
"""

from __future__ import annotations

import json
import subprocess
import unicodedata
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

ICU_SAMPLE_JS = r"""
const locales = %s;
const regions = 'AD AE AF AR AT AU BD BE BG BR CA CH CL CN CO CZ DE DK DZ EG ES ET FI FR GB GH GR HK HU ID IE IL IN IQ IR IT JP KE KR KZ LK MA MX MY NG NL NO NP NZ PE PH PK PL PT RO RS RU SA SE SG SK TH TR TW TZ UA US UZ VE VN ZA'.split(' ');
const langs = 'ar bn de el en es fa fi fr he hi id it ja ko ms nl pl pt ro ru sv sw th tr uk ur vi zh'.split(' ');
const curr = 'USD EUR JPY GBP CNY INR RUB BRL KRW TRY IDR MXN PLN UAH VND ILS SAR EGP'.split(' ');
const out = [];
for (const loc of locales) {
  try {
    const r = new Intl.DisplayNames([loc], { type: 'region' });
    const l = new Intl.DisplayNames([loc], { type: 'language' });
    const c = new Intl.DisplayNames([loc], { type: 'currency' });
    out.push(regions.map((x) => r.of(x)).join(', '));
    out.push(langs.map((x) => l.of(x)).join(', '));
    out.push(curr.map((x) => c.of(x)).join(', '));
    const d = [];
    for (let m = 0; m < 12; m++) {
      const dt = new Date(Date.UTC(2026, m, 3 + m, 9, 30));
      d.push(dt.toLocaleDateString(loc, { weekday: 'long', year: 'numeric', month: 'long', day: 'numeric' }));
      d.push(dt.toLocaleDateString(loc, { month: 'short', weekday: 'short' }));
    }
    out.push(d.join(' '));
    const rt = new Intl.RelativeTimeFormat(loc, { numeric: 'auto' });
    out.push(['second', 'minute', 'hour', 'day', 'week', 'month', 'year'].flatMap((u) => [-2, -1, 1, 3].map((n) => rt.format(n, u))).join(' '));
    out.push(new Intl.ListFormat(loc, { type: 'conjunction' }).format(['A', 'B', 'C']) + ' ' + new Intl.ListFormat(loc, { type: 'disjunction' }).format(['A', 'B']));
    out.push(new Intl.NumberFormat(loc, { style: 'currency', currency: 'EUR' }).format(1234.5) + ' ' + new Intl.NumberFormat(loc, { style: 'percent' }).format(0.25));
  } catch (e) {}
}
process.stdout.write(JSON.stringify(out));
"""

LOCALES = ("af am ar az be bg bn bs ca cs cy da de el en es et eu fa fi fil fr ga gl gu he hi hr hu hy id is it ja "
           "ka kk km kn ko ky lo lt lv mk ml mn mr ms my nb ne nl no or pa pl ps pt ro ru si sk sl so sq sr sv sw "
           "ta te th tr uk ur uz vi zh zh-Hant zu").split()


def icu_sample() -> list[str]:
    """Multilingual text from the CLDR data in Node's ICU (no network)."""
    res = subprocess.run(["node", "-e", ICU_SAMPLE_JS % json.dumps(LOCALES)], capture_output=True, text=True, check=True)
    return json.loads(res.stdout)


def docs_sample() -> list[str]:
    out = []
    for p in sorted((ROOT / "docs").glob("*.md")):
        out.extend(line for line in p.read_text(encoding="utf-8").splitlines() if line.strip())
    return out


def script_of(ch: str) -> str:
    try:
        name = unicodedata.name(ch)
    except ValueError:
        return "?"
    first = name.split()[0]
    return {"FULLWIDTH": "LATIN", "HALFWIDTH": "KATAKANA"}.get(first, first)


def prune(tokenizer_json: Path, texts: list[str], extra_texts: list[str],
          all_scripts: bool = True) -> tuple[dict, list[int], dict]:
    """Returns (new tokenizer.json dict, kept old ids in new-id order, stats)."""
    from tokenizers import Tokenizer

    tj = json.loads(Path(tokenizer_json).read_text(encoding="utf-8"))
    assert tj["model"]["type"] == "Unigram", "pruning supports Unigram tokenizers"
    tok = Tokenizer.from_file(str(tokenizer_json))
    vocab = tj["model"]["vocab"]
    keep = {a["id"] for a in tj.get("added_tokens", [])}
    keep.add(tj["model"]["unk_id"])
    stats = {"original": len(vocab)}
    scripts = set()
    for src, name in ((texts, "corpus"), (extra_texts, "sample")):
        before = len(keep)
        for i in range(0, len(src), 512):
            for e in tok.encode_batch(src[i:i + 512], add_special_tokens=False):
                keep.update(e.ids)
        if name == "corpus":
            for t in src:
                scripts.update(script_of(c) for c in t if c.isalpha())
        stats[f"from_{name}"] = len(keep) - before
    before = len(keep)
    for i, (piece, _) in enumerate(vocab):
        core = piece[1:] if piece.startswith("\u2581") and len(piece) > 1 else piece
        if len(core) == 1 and (all_scripts or not core.isalpha() or script_of(core) in scripts):
            keep.add(i)
    stats["from_single_chars"] = len(keep) - before
    stats["scripts"] = sorted(scripts)
    kept = sorted(keep)
    remap = {old: new for new, old in enumerate(kept)}
    new = json.loads(json.dumps(tj))
    new["model"]["vocab"] = [vocab[i] for i in kept]
    new["model"]["unk_id"] = remap[tj["model"]["unk_id"]]
    for a in new.get("added_tokens", []):
        a["id"] = remap[a["id"]]
    pp = new.get("post_processor") or {}
    for v in (pp.get("special_tokens") or {}).values():
        v["ids"] = [remap[i] for i in v["ids"]]
    stats["kept"] = len(kept)
    return new, kept, stats


def split_sample(lines: list[str], every: int = 5) -> tuple[list[str], list[str]]:
    """(kept for pruning, held out for the check): every ``every``-th line is held out."""
    return [x for i, x in enumerate(lines) if i % every], [x for i, x in enumerate(lines) if i % every == 0]


def corpus_texts(items, mask_text: str) -> list[str]:
    """The texts the service tokenizes for these items (head, each option, state)."""
    from layout import render_content, render_head, render_options

    out = []
    for it in items:
        q = it["question"]
        out.append(render_head(q).replace(mask_text, " "))
        out.extend((" " + o).replace(mask_text, " ") for o in render_options(q))
        out.append(render_content(it["state"]).replace(mask_text, " "))
    return out


def prune_for_training(tokenizer_json: Path, items: list[dict], mask_text: str, out_dir: Path) -> tuple[Path, list[int], dict]:
    """Prune with the corpus ``items`` + 4/5 of the broad sample; check on the held-out fifth and the
    backbone's coverage sentences. Writes OUT/tokenizer.json and OUT/vocab.json (kept ids + stats)."""
    from backbones import COVERAGE_TEXTS

    sample = icu_sample() + docs_sample()
    use, held = split_sample(sample)
    new, kept, stats = prune(tokenizer_json, corpus_texts(items, mask_text), use)
    out = Path(out_dir) / "tokenizer.json"
    out.write_text(json.dumps(new, ensure_ascii=False), encoding="utf-8")
    unk = new["model"]["vocab"][new["model"]["unk_id"]][0]
    stats["check_heldout_sample"] = check(tokenizer_json, out, kept, held, unk)
    stats["check_coverage_texts"] = check(tokenizer_json, out, kept, list(COVERAGE_TEXTS.values()), unk)
    (Path(out_dir) / "vocab.json").write_text(json.dumps({"kept": kept, "stats": stats}, ensure_ascii=False))
    return out, kept, stats


def apply_to_model(model, kept: list[int]) -> None:
    """Keep only the embedding rows in ``kept`` (new id = position in ``kept``)."""
    import torch

    emb = model.encoder.embeddings.word_embeddings
    new = torch.nn.Embedding(len(kept), emb.weight.shape[1])
    with torch.no_grad():
        new.weight.copy_(emb.weight[torch.tensor(kept)])
    new.weight.requires_grad_(emb.weight.requires_grad)
    model.encoder.embeddings.word_embeddings = new
    model.encoder.config.vocab_size = len(kept)


def check(old_json: Path, new_json: Path, kept: list[int], texts: list[str], unk_token: str) -> dict:
    """Held-out texts: share tokenized identically (after mapping ids back) and <unk> rates."""
    from tokenizers import Tokenizer

    old, new = Tokenizer.from_file(str(old_json)), Tokenizer.from_file(str(new_json))
    unk_old, unk_new = old.token_to_id(unk_token), new.token_to_id(unk_token)
    same = tok_old = tok_new = u_old = u_new = 0
    for t in texts:
        a = old.encode(t, add_special_tokens=False).ids
        b = [kept[i] for i in new.encode(t, add_special_tokens=False).ids]
        same += a == b
        tok_old += len(a)
        tok_new += len(b)
        u_old += sum(i == unk_old for i in a)
        u_new += sum(i == kept[unk_new] for i in b)
    n = max(1, len(texts))
    return {"texts": len(texts), "identical": round(same / n, 4), "tokens_original": tok_old, "tokens_pruned": tok_new,
            "unk_rate_original": round(u_old / max(1, tok_old), 5), "unk_rate_pruned": round(u_new / max(1, tok_new), 5)}
