"""Fit softmax temperatures on the dev split (issue 6).

    python training/calibrate.py --run OUT        # reads OUT/dev_logits.jsonl, writes OUT/calibration.json
    python training/calibrate.py --logits FILE --rows handwritten --apply CHECKPOINT_DIR

``--rows handwritten`` fits on the dev rows written by hand only (training/corpus/handwritten, split by
group from the training items): the template dev rows come from the same generators as the training
rows, so temperatures fitted on them are as overconfident as the model is on its own templates, which
real callers' text is not (issue 19). ``--apply`` writes the fitted table into a checkpoint's manifest
(dev_logits.py gives the logits of any exported checkpoint).

Temperatures per question type x option-count bucket ("2", "3-5", "6-10", "11+"), minimising the dev
negative log-likelihood, clamped to [0.5, 5] (the engine clamps too). A cell with fewer than
``--min-items`` dev rows takes its type's temperature (all buckets pooled); a type with too few rows
keeps T = 1 (omitted). ``by_language``: for a language with at least ``--min-items`` dev rows in a cell
(or in a type, pooled over buckets) that cell gets an override. For a multilingual run the default
table is fitted on the non-English rows (English gets its own override), since the default applies to
every language without one.

Reports expected calibration error (top-1 confidence, 10 equal-width bins) per type, before and after,
and ``ece_floor``: what a perfectly calibrated model would measure on the same number of rows.
"""

from __future__ import annotations

import argparse
import json
import math
import random
from collections import defaultdict
from pathlib import Path

T_MIN, T_MAX = 0.5, 5.0
TYPES = ("choice", "score", "noul")
BUCKETS = {"choice": ("2", "3-5", "6-10", "11+"), "score": ("2", "3-5", "6-10", "11+"), "noul": ("2",)}


def bucket(n: int) -> str:
    return "2" if n <= 2 else "3-5" if n <= 5 else "6-10" if n <= 10 else "11+"


def _lse(xs):
    m = max(xs)
    return m + math.log(sum(math.exp(x - m) for x in xs))


def nll(rows, t: float) -> float:
    return sum(_lse([x / t for x in r["logits"]]) - r["logits"][r["label"]] / t for r in rows) / len(rows)


def fit_t(rows) -> float:
    """Golden-section search on log T over [0.5, 5] (NLL in 1/T is convex)."""
    lo, hi = math.log(T_MIN), math.log(T_MAX)
    g = (math.sqrt(5) - 1) / 2
    a, b = hi - g * (hi - lo), lo + g * (hi - lo)
    fa, fb = nll(rows, math.exp(a)), nll(rows, math.exp(b))
    for _ in range(40):
        if fa < fb:
            hi, b, fb = b, a, fa
            a = hi - g * (hi - lo)
            fa = nll(rows, math.exp(a))
        else:
            lo, a, fa = a, b, fb
            b = lo + g * (hi - lo)
            fb = nll(rows, math.exp(b))
    return round(min(T_MAX, max(T_MIN, math.exp((lo + hi) / 2))), 4)


def fit_table(rows, min_items: int) -> dict:
    table: dict = {}
    by_type = defaultdict(list)
    for r in rows:
        by_type[r["type"]].append(r)
    for t, rs in by_type.items():
        if len(rs) < min_items:
            continue
        pooled = fit_t(rs)
        cells = defaultdict(list)
        for r in rs:
            cells[bucket(len(r["logits"]))].append(r)
        table[t] = {b: (fit_t(c) if len(c) >= min_items else pooled) for b, c in sorted(cells.items())}
        for b in BUCKETS[t]:  # a bucket without dev rows takes the pooled value, not the engine's T = 1
            table[t].setdefault(b, pooled)
    return table


def temperature(cal: dict, r: dict) -> float:
    b = bucket(len(r["logits"]))
    over = cal.get("by_language", {}).get(r["lang"], {}).get(r["type"], {}).get(b)
    t = over if over is not None else cal["temperature"].get(r["type"], {}).get(b, 1.0)
    return min(T_MAX, max(T_MIN, t))


def softmax(xs, t):
    m = max(x / t for x in xs)
    e = [math.exp(x / t - m) for x in xs]
    s = sum(e)
    return [v / s for v in e]


def ece(rows, temps, bins: int = 10) -> float:
    acc = [[0, 0.0, 0.0] for _ in range(bins)]
    for r, t in zip(rows, temps):
        p = softmax(r["logits"], t)
        k = max(range(len(p)), key=p.__getitem__)
        i = min(bins - 1, int(p[k] * bins))
        acc[i][0] += 1
        acc[i][1] += p[k]
        acc[i][2] += float(k == r["label"])
    n = sum(a[0] for a in acc)
    return round(sum(abs(a[1] - a[2]) for a in acc if a[0]) / max(1, n), 4)


def ece_floor(rows, temps, sims: int = 500, seed: int = 0) -> float:
    """The ECE a perfectly calibrated model would show on this many rows: labels drawn from the
    calibrated probabilities themselves, ECE averaged over ``sims`` draws. A measured ECE near this
    value is sampling noise; only the excess says something about calibration."""
    rng = random.Random(seed)
    probs = [softmax(r["logits"], t) for r, t in zip(rows, temps)]
    total = 0.0
    for _ in range(sims):
        drawn = [{"logits": r["logits"], "label": rng.choices(range(len(p)), weights=p)[0]} for r, p in zip(rows, probs)]
        total += ece(drawn, temps)
    return round(total / sims, 4)


def report(rows, cal) -> dict:
    out = {}
    for t in TYPES + ("all",):
        rs = [r for r in rows if t == "all" or r["type"] == t]
        if not rs:
            continue
        after = [temperature(cal, r) for r in rs]
        out[t] = {"n": len(rs), "ece_before": ece(rs, [1.0] * len(rs)), "ece_after": ece(rs, after),
                  "ece_floor": ece_floor(rs, after),
                  "nll_before": round(sum(nll([r], 1.0) for r in rs) / len(rs), 4),
                  "nll_after": round(sum(nll([r], x) for r, x in zip(rs, after)) / len(rs), 4)}
    return out


def calibrate(rows, min_items: int = 30, multilingual: bool | None = None) -> dict:
    langs = sorted({r["lang"] for r in rows})
    if multilingual is None:
        multilingual = langs != ["en"]
    base = [r for r in rows if r["lang"] != "en"] if multilingual else rows
    default = fit_table(base, min_items)
    # fill types the base could not fit from all rows
    for t, cells in fit_table(rows, min_items).items():
        default.setdefault(t, cells)
        for b, v in cells.items():
            default[t].setdefault(b, v)
    cal = {"temperature": default}
    by_lang = {}
    for lang in langs:
        lr = [r for r in rows if r["lang"] == lang]
        if len(lr) < min_items or (lang != "en" and not multilingual):
            continue
        tab = fit_table(lr, min_items)
        if tab and (multilingual or lang != "en"):
            by_lang[lang] = tab
    if multilingual and by_lang:
        cal["by_language"] = by_lang
    return cal


def merge(old: dict, new: dict, types) -> dict:
    """``old`` with the temperatures of ``types`` (default table and per-language overrides) from ``new``."""
    out = json.loads(json.dumps(old))
    for t in types:
        out["temperature"].pop(t, None)
        if t in new["temperature"]:
            out["temperature"][t] = new["temperature"][t]
        for lang in set(out.get("by_language", {})) | set(new.get("by_language", {})):
            cells = out.setdefault("by_language", {}).setdefault(lang, {})
            cells.pop(t, None)
            if t in new.get("by_language", {}).get(lang, {}):
                cells[t] = new["by_language"][lang][t]
            if not cells:
                del out["by_language"][lang]
    if not out.get("by_language"):
        out.pop("by_language", None)
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--run", type=Path, help="training output folder (dev_logits.jsonl; calibration.json is written there)")
    ap.add_argument("--logits", type=Path, help="a dev_logits.jsonl (default RUN/dev_logits.jsonl)")
    ap.add_argument("--out", type=Path, help="default RUN/calibration.json, else next to --logits")
    ap.add_argument("--rows", choices=["all", "handwritten"], default="all", help="dev rows to fit on")
    ap.add_argument("--apply", type=Path, metavar="CHECKPOINT", help="write the table into CHECKPOINT/manifest.json")
    ap.add_argument("--types", default=",".join(TYPES),
                    help="with --apply: the types whose temperatures are replaced (the others keep the manifest's)")
    ap.add_argument("--min-items", type=int, default=30)
    args = ap.parse_args(argv)
    if not (args.run or args.logits):
        ap.error("give --run or --logits")
    logits = args.logits or args.run / "dev_logits.jsonl"
    out_file = args.out or (args.run / "calibration.json" if args.run else logits.with_name("calibration.json"))
    rows = [json.loads(line) for line in open(logits, encoding="utf-8") if line.strip()]
    fit_rows = [r for r in rows if args.rows == "all" or r.get("handwritten")]
    if not fit_rows:
        ap.error(f"{logits}: no {args.rows} rows (dev logits written before the handwritten flag?)")
    cal = calibrate(fit_rows, args.min_items)
    if args.apply:  # the manifest's table with the fitted types replaced is what gets reported and served
        path = args.apply / "manifest.json"
        manifest = json.loads(path.read_text(encoding="utf-8"))
        types = args.types.split(",")
        cal = merge(manifest.get("calibration", {"temperature": {}}), cal, types)
        manifest["calibration"] = cal
        manifest.setdefault("provenance", {}).setdefault("calibration", {}).update(
            {t: {"fitted_on": args.rows, "dev_rows": sum(r["type"] == t for r in fit_rows)} for t in types})
        path.write_text(json.dumps(manifest, indent=1, ensure_ascii=False), encoding="utf-8")
    out = {"calibration": cal, "fitted_on": args.rows, "report": report(rows, cal),
           "report_handwritten": report([r for r in rows if r.get("handwritten")], cal),
           "dev_rows": len(rows), "fit_rows": len(fit_rows), "min_items": args.min_items}
    out_file.write_text(json.dumps(out, indent=1))
    print(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
