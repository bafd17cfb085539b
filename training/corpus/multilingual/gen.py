#!/usr/bin/env python3
"""Deterministic generator for the multilingual half of the training corpus.

    python3 training/corpus/multilingual/gen.py            # writes raw.jsonl next to this file
    python3 training/corpus/multilingual/gen.py --stats    # also prints counts

All text comes from the hand-authored banks in lang_*.py; no external data.
"""
import argparse
import hashlib
import json
import os
import random
import re
import sys
from collections import Counter, defaultdict

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from tasks import TASKS  # noqa: E402
import lang_romance, lang_germanic, lang_slavic, lang_mideast, lang_asia  # noqa: E402,E401
from lang_extra import EXTRA, INSTR_EXTRA  # noqa: E402
from lang_more import MORE  # noqa: E402

SEED = 20261122
LANGS = {}
for mod in (lang_romance, lang_germanic, lang_slavic, lang_mideast, lang_asia):
    for L in mod.LANGS:
        LANGS[L["code"]] = L
for _code, _banks in MORE.items():
    for _k, _v in _banks.items():
        if _k in ("instr", "desc"):
            LANGS[_code][_k] = dict(LANGS[_code][_k], **_v)
        else:
            LANGS[_code][_k] = list(_v)
for _code, _ins in INSTR_EXTRA.items():
    LANGS[_code]["instr"] = dict(LANGS[_code]["instr"])
    for _t, _xs in _ins.items():
        LANGS[_code]["instr"][_t] = list(LANGS[_code]["instr"][_t]) + list(_xs)
for _code, _banks in EXTRA.items():
    for _bank, _rows in _banks.items():
        LANGS[_code][_bank] = list(LANGS[_code][_bank]) + list(_rows)

TARGET = defaultdict(lambda: 320, {"fr": 720, "ja": 720, "ar": 720})

WEIGHTS = {
    "support_department": 9, "support_urgency": 8, "support_tone": 6, "support_is_billing": 5,
    "support_wants_cancel": 4, "conversation_resolved": 6, "review_sentiment": 8,
    "review_aspect": 6, "review_positive": 5, "moderation_label": 6, "moderation_violation": 4,
    "expense_category": 5, "expense_over_limit": 4, "phishing_detect": 6, "alert_severity": 6,
    "hr_routing": 5, "triage_urgency": 5, "rag_relevance": 7, "legal_area": 5, "document_type": 5,
}

# Languages whose first-person sentences mark the speaker's gender (adjectives, past tense, nouns):
# a random signature name could contradict the message, so no personal names are attached there.
GENDERED = {"fr", "es", "pt", "it", "pl", "ru", "uk", "ar", "he", "hi"}

THANKS = re.compile(r"(Merci|Gracias|Obrigad[ao]|Grazie|Danke|Bedankt|Dziękuję|Спасибо|Дякую|شكرًا|תודה|Teşekkürler|감사합니다|谢谢|धन्यवाद|Cảm ơn|Terima kasih)[.!。।]?\s*$")

EN_CLOSE = ["Sent from my iPhone", "Thanks!", "Best regards", "Sent from Outlook for Android"]
CURRENCY = {"fr": "EUR", "de": "EUR", "es": "EUR", "pt": "BRL", "it": "EUR", "nl": "EUR",
            "pl": "PLN", "tr": "TRY", "ru": "RUB", "uk": "UAH", "ar": "SAR", "he": "ILS",
            "hi": "INR", "zh": "CNY", "ja": "JPY", "ko": "KRW", "vi": "VND", "id": "IDR"}
CUR_SCALE = {"JPY": 100, "KRW": 1000, "VND": 20000, "IDR": 10000, "INR": 50, "RUB": 50,
             "UAH": 30, "TRY": 20, "CNY": 5, "SAR": 3, "ILS": 3, "PLN": 4, "BRL": 5}


def diff_of(d, attr):
    if isinstance(d, dict):
        return d.get(attr, d.get("*", "easy"))
    return d or "easy"


# --------------------------------------------------------------------------- base candidates
def base_candidates(task_id, L):
    """List of (payload, answer, difficulty). payload is bank-specific."""
    t = TASKS[task_id]
    bank = t["bank"]
    out = []
    if bank == "support":
        for text, dept, urg, tone, d in L["support"]:
            row = {"dept": dept, "urg": urg, "tone": tone}
            v = row[t["attr"]]
            if v is None:
                continue
            if t["type"] == "noul":
                out.append((text, v == t["pred"], diff_of(d, t["attr"])))
            else:
                out.append((text, v, diff_of(d, t["attr"])))
    elif bank == "reviews":
        for text, stars, aspect, d in L["reviews"]:
            if task_id == "review_positive":
                if stars == 2:
                    continue
                out.append((text, stars >= 3, diff_of(d, "stars")))
            elif task_id == "review_sentiment":
                out.append((text, stars, diff_of(d, "stars")))
            else:
                if aspect is not None:
                    out.append((text, aspect, diff_of(d, "aspect")))
    elif bank == "moderation":
        for text, mod, d in L["moderation"]:
            ans = (mod != "acceptable") if t["type"] == "noul" else mod
            out.append((text, ans, diff_of(d, "mod")))
    elif bank in ("expense", "phishing", "alerts", "hr", "triage", "legal", "docs"):
        for text, lab, d in L[bank]:
            out.append((text, lab, diff_of(d, t.get("attr"))))
    elif bank == "resolved":
        for text, lab, d in L["resolved"]:
            out.append((text, lab, diff_of(d, None)))
    elif bank == "expense_limit":
        for k in range(40):
            out.append((k, k % 2 == 0, "boundary" if k % 4 in (1, 2) else "easy"))
    elif bank == "rag":
        qs = L["rag"]
        for qi, (q, passages) in enumerate(qs):
            for p, lev, d in passages:
                out.append(((q, p), lev, d))
            for qj, (_, other) in enumerate(qs):
                if qj != qi:
                    # passages written for a different query are irrelevant (topics are disjoint)
                    out.append(((q, other[0][0]), 0, "easy"))
    return out


# --------------------------------------------------------------------------- state rendering
def pick(rng, xs):
    return xs[rng.randrange(len(xs))]


def ticket_text(rng, L, core, name=None):
    name = name or pick(rng, L["names"])
    parts = []
    opener = pick(rng, L["support_open"]) if rng.random() < 0.75 else None
    r = rng.random()
    closers = L["support_close"]
    if L["code"] in GENDERED:
        closers = [c for c in closers if "{name}" not in c]
    if r < 0.6:
        closer = pick(rng, closers).format(name=name)
    elif r < 0.7:
        closer = pick(rng, EN_CLOSE)
    else:
        closer = None
    if closer and closer not in EN_CLOSE and THANKS.search(core):
        closer = None   # the message already ends with a thank-you
    sep = "" if L.get("nospace") else " "
    if rng.random() < 0.3:
        sep = "\n"
    out = ""
    if opener:
        # a salutation ending in a comma/colon starts its own line (letter style, keeps capitalisation right)
        if opener.endswith("\n") or opener.rstrip().endswith((",", "،", ":")):
            out = opener.rstrip("\n") + "\n"
        else:
            out = opener + sep
    out += core
    if closer:
        out += ("\n" if ("\n" in closer or closer in EN_CLOSE) else sep) + closer
    return out


def agent_turns(rng, L):
    """Agent asks for an identifier; the customer answers in kind (index 1 of `agent` asks for the e-mail)."""
    i = rng.randrange(len(L["agent"]))
    num = rng.randrange(10000, 99999)
    if i == 1:
        reply = "client%d@mail.example" % num
    else:
        reply = pick(rng, L["followup"]).format(num=num)
    return [{"role": "assistant", "content": L["agent"][i]}, {"role": "user", "content": reply}]


def render_state(task_id, L, payload, rng):
    t = TASKS[task_id]
    bank = t["bank"]
    r = rng.random()
    if bank == "support":
        if r < 0.5:
            return ticket_text(rng, L, payload), "text"
        if r < 0.75:
            name = pick(rng, L["names"])
            who = ({"id": "C-%05d" % rng.randrange(100000)} if L["code"] in GENDERED else {"name": name})
            who["plan"] = pick(rng, ["free", "pro", "business"])
            return {"ticket_id": "T-%05d" % rng.randrange(100000),
                    "channel": pick(rng, ["email", "chat", "web_form", "app"]),
                    "customer": who,
                    "message": ticket_text(rng, L, payload, name)}, "json"
        conv = [{"role": "user", "content": ticket_text(rng, L, payload)}] + agent_turns(rng, L)
        return conv, "conversation"
    if bank == "resolved":
        # only problems an agent can plausibly "fix" open a resolution conversation
        fixable = [c for c in L["support"] if c[1] in ("technical", "account_access", "billing")
                   and (c[2] or 0) >= 1 and diff_of(c[4], "dept") != "decoy"]
        core = pick(rng, fixable)[0]
        conv = [{"role": "user", "content": ticket_text(rng, L, core)}]
        if rng.random() < 0.4:
            conv += agent_turns(rng, L)
        conv += [{"role": "assistant", "content": pick(rng, L["agent_fix"])},
                 {"role": "user", "content": payload}]
        if rng.random() < 0.5:
            return conv, "conversation"
        return {"conversation_id": "c_%06d" % rng.randrange(10 ** 6), "messages": conv}, "json"
    if bank == "reviews":
        if r < 0.6:
            return payload, "text"
        return {"sku": "SKU-%04d" % rng.randrange(10000), "verified_purchase": rng.random() < 0.8,
                "review": payload}, "json"
    if bank == "moderation":
        if r < 0.5:
            return payload, "text"
        return {"post_id": rng.randrange(10 ** 6), "author": "user_%04d" % rng.randrange(10000),
                "comment": payload}, "json"
    if bank == "expense":
        if r < 0.45:
            return payload, "text"
        cur = CURRENCY[L["code"]]
        return {"employee": pick(rng, L["names"]), "date": "2026-%02d-%02d" % (rng.randint(1, 12), rng.randint(1, 28)),
                "amount": round(rng.uniform(8, 400) * CUR_SCALE.get(cur, 1), 2), "currency": cur,
                "description": payload}, "json"
    if bank == "expense_limit":
        cur = CURRENCY[L["code"]]
        sc = CUR_SCALE.get(cur, 1)
        limit = pick(rng, [50, 80, 100, 150, 200, 250, 500]) * sc
        k = payload
        over = (k % 2 == 0)
        boundary = k % 4 in (1, 2)
        if boundary:
            delta = pick(rng, [0.01, 0.5, 1, 2]) * (1 if sc == 1 else sc / 10)
            amount = limit + delta if over else pick(rng, [limit, limit - delta])
        else:
            amount = limit * (rng.uniform(1.3, 3) if over else rng.uniform(0.15, 0.8))
        amount = round(amount, 2) if sc == 1 else round(amount)
        desc = pick(rng, L["expense"])[0]
        state = {"employee": pick(rng, L["names"]), "amount": amount, "currency": cur, "description": desc}
        return (state, limit), "json"
    if bank == "phishing":
        if r < 0.5:
            return payload, "text"
        return {"channel": pick(rng, ["sms", "email"]), "received_at": "2026-%02d-%02dT%02d:%02d:00Z" % (
            rng.randint(1, 12), rng.randint(1, 28), rng.randint(0, 23), rng.randint(0, 59)), "body": payload}, "json"
    if bank == "alerts":
        if r < 0.45:
            return payload, "text"
        return {"service": pick(rng, ["payments-api", "auth-service", "web-frontend", "search", "db-primary", "mail-relay"]),
                "env": "prod", "source": pick(rng, ["prometheus", "datadog", "zabbix", "grafana"]),
                "message": payload}, "json"
    if bank == "hr":
        if r < 0.5:
            return payload, "text"
        # HR messages mention spouses etc., so no name that could contradict them
        sender = "employee_%04d" % rng.randrange(10000)
        return {"from": sender, "to": "hr@company.example", "body": payload}, "json"
    if bank == "triage":
        if r < 0.55:
            return payload, "text"
        return {"channel": pick(rng, ["patient_portal", "sms", "phone_transcript"]), "message": payload}, "json"
    if bank == "legal":
        if r < 0.5:
            return payload, "text"
        st = {"channel": pick(rng, ["web_form", "email", "phone_note"]), "case_ref": "L-%05d" % rng.randrange(100000),
              "enquiry": payload}
        return st, "json"
    if bank == "docs":
        if r < 0.6:
            return payload, "text"
        return {"filename": "scan_%04d.pdf" % rng.randrange(10000), "pages": 1, "ocr_text": payload}, "json"
    if bank == "rag":
        q, p = payload
        if r < 0.5:
            return {"query": q, "passage": p}, "json"
        return (p, q), "text"   # query goes into instructions
    raise KeyError(bank)


# --------------------------------------------------------------------------- question rendering
def describe(rng, L, task_id, native):
    """Return (instr_lang, desc_lang) choices."""
    instr_native = native
    r = rng.random()
    if native:
        desc_native = r < 0.85
    else:
        desc_native = r < 0.15
    return instr_native, desc_native


def build_question(task_id, L, rng, answer, extra=None):
    t = TASKS[task_id]
    native = rng.random() < 0.5 and task_id in L["instr"]
    instr_native, desc_native = describe(rng, L, task_id, native)
    instr = pick(rng, L["instr"][task_id]) if instr_native else pick(rng, t["en"])
    qtype = t["type"]
    if qtype == "choice":
        keys = list(t["keys"])
        if rng.random() < 0.25 and len(keys) > 2:
            others = [k for k in keys if k != answer]
            rng.shuffle(others)
            keys = [answer] + others[:rng.randint(1, len(others) - 1)]
        add_other = rng.random() < 0.12
        rng.shuffle(keys)
        nulls = rng.random() < 0.12
        nat = L["desc"].get(task_id, {})
        crit = {}
        for k in keys:
            if nulls:
                crit[k] = None
            elif desc_native and k in nat:
                crit[k] = nat[k]
            else:
                crit[k] = t["en_desc"][k]
        if add_other:
            crit["other"] = None if nulls else (L["other"] if desc_native else "None of the above")
        criteria = crit
    elif qtype == "score":
        nat = L["desc"].get(task_id)
        criteria = list(nat) if (desc_native and nat) else list(t["en_desc"])
    else:
        r = rng.random()
        if r < 0.45:
            criteria = None
        else:
            nat = L["crit"].get(task_id)
            c = dict(nat) if (desc_native and nat) else dict(t["en_crit"])
            if r > 0.9:
                c.pop(pick(rng, ["true", "false"]))
            criteria = c
    q = {"type": qtype, "instructions": instr, "criteria": criteria}
    return q


# --------------------------------------------------------------------------- main loop
_W = re.compile(r"\w+", re.UNICODE)


def shingles(state):
    """Word 3-grams of the rendered state (mirrors the screen's near-duplicate notion)."""
    txt = state if isinstance(state, str) else json.dumps(state, ensure_ascii=False)
    ws = _W.findall(txt.lower())
    g = {tuple(ws[i:i + 3]) for i in range(len(ws) - 2)}
    return g or {tuple(ws)}


def too_close(sh, pool, thr=0.75):
    for o in pool:
        inter = len(sh & o)
        if inter and inter / (len(sh) + len(o) - inter) >= thr:
            return True
    return False


def stable_seed(*parts):
    return int(hashlib.sha256("|".join(map(str, (SEED,) + parts)).encode()).hexdigest()[:12], 16)


def gen_lang(code, L):
    rng = random.Random(stable_seed(code))
    total_w = sum(WEIGHTS.values())
    items = []
    seen = set()
    for task_id in TASKS:
        t = TASKS[task_id]
        n = round(TARGET[code] * WEIGHTS[task_id] / total_w)
        cands = base_candidates(task_id, L)
        if not cands:
            continue
        by_ans = defaultdict(list)
        for c in cands:
            by_ans[json.dumps(c[1])].append(c)
        answers = sorted(by_ans)
        for a in answers:
            rng.shuffle(by_ans[a])
        ptr = Counter()
        made = 0
        attempts = 0
        pool = []
        while made < n and attempts < n * 30:
            attempts += 1
            a = answers[attempts % len(answers)]
            lst = by_ans[a]
            payload, answer, diff = lst[ptr[a] % len(lst)]
            ptr[a] += 1
            state, fmt = render_state(task_id, L, payload, rng)
            q = build_question(task_id, L, rng, answer)
            if t["bank"] == "expense_limit":
                state, limit = state
                q["instructions"] = {"policy": {"max_amount": limit, "currency": state["currency"]},
                                     "question": q["instructions"]}
                answer = state["amount"] > limit
            if t["bank"] == "rag" and fmt == "text":
                state, query = state
                q["instructions"] = {"query": query, "question": q["instructions"]}
            key = json.dumps([state, q], ensure_ascii=False, sort_keys=True)
            if key in seen:
                continue
            sh = shingles(state)
            if too_close(sh, pool):
                continue
            pool.append(sh)
            seen.add(key)
            made += 1
            items.append({"id": None, "lang": code, "domain": t["domain"], "task": task_id,
                          "difficulty": diff, "state": state, "question": q, "answer": answer})
    rng.shuffle(items)
    per_task = Counter()
    for it in items:
        per_task[it["task"]] += 1
        it["id"] = "%s-%s-%d" % (code, it["task"], per_task[it["task"]])
    return items


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=os.path.join(HERE, "raw.jsonl"))
    ap.add_argument("--stats", action="store_true")
    ap.add_argument("--langs", default="")
    args = ap.parse_args()
    codes = [c for c in sorted(LANGS) if not args.langs or c in args.langs.split(",")]
    all_items = []
    for code in codes:
        all_items.extend(gen_lang(code, LANGS[code]))
    with open(args.out, "w", encoding="utf-8") as f:
        for it in all_items:
            f.write(json.dumps(it, ensure_ascii=False) + "\n")
    print("wrote %d items to %s" % (len(all_items), args.out))
    if args.stats:
        by = defaultdict(Counter)
        for it in all_items:
            by[it["lang"]][it["question"]["type"]] += 1
        for c in codes:
            print(c, sum(by[c].values()), dict(by[c]))
        print("difficulty", Counter(it["difficulty"] for it in all_items))
        print("noul true share", sum(1 for it in all_items if it["answer"] is True) /
              max(1, sum(1 for it in all_items if isinstance(it["answer"], bool))))


if __name__ == "__main__":
    main()
