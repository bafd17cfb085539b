#!/usr/bin/env python3
"""Screen the raw training corpus and build train/dev splits.

    python3 training/corpus/screen.py            # from the repo root

Reads   training/corpus/en/raw.jsonl, every *.jsonl under training/corpus/multilingual/ and every
        *.jsonl under training/corpus/handwritten/ (items written by hand, issue 19: their difficulty is
        "handwritten", they skip the cue_conflict and duplicate_near checks, and they split by task in
        every language)
Writes  training/corpus/build/{train,dev}.jsonl and training/corpus/build/report.json

Independent of the generators: it only looks at the item format.  Standard library only.
Drop reasons (first failing check wins, in this order):
  schema            missing/ill-typed fields, unknown type/difficulty/lang
  label_invalid     answer not among the options / level out of range / criteria malformed
  empty_state       state empty after rendering
  overlong          rendered question head + options + state above the token window (estimate)
  jabr_leak         word 8-gram overlap or high token-set Jaccard with the jabr-v1 eval set
  duplicate_exact   same state + same question as an earlier item
  duplicate_near    same task and state word-3-gram Jaccard >= 0.8 with an earlier kept item
  cue_conflict      state carries strong lexicon cues for a non-gold option (or, for noul=false, for
                    the asked concept) and the item is not a decoy with explicit disambiguation
"""
from __future__ import annotations

import glob
import hashlib
import json
import os
import re
import sys
import tomllib
from collections import Counter, defaultdict

ROOT = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(ROOT, "..", ".."))
JABR = os.environ.get("JABR_TOML", "/work/shared/eval/jabr-v1/v1.toml")
BUILD = os.path.join(ROOT, "build")
DEV_MOD = 10  # ~10% of tasks go to dev
SCORE_DEV_SLOTS = 3  # ~30% of English score tasks (see task_split)

TYPES = {"noul", "choice", "score"}
DIFFS = {"easy", "boundary", "decoy", HANDWRITTEN := "handwritten"}
REASONS = ["schema", "label_invalid", "empty_state", "overlong", "jabr_leak", "duplicate_exact", "duplicate_near", "cue_conflict"]


# ----------------------------------------------------------------------------------------- text utils
def render(x) -> str:
    if x is None:
        return ""
    if isinstance(x, str):
        return x
    return json.dumps(x, ensure_ascii=False)


_TOK = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]|\w+|[^\w\s]", re.UNICODE)


def est_tokens(s: str) -> int:
    """Rough subword estimate: words count 1.3 tokens, punctuation and CJK characters 1 each."""
    n = 0.0
    for t in _TOK.findall(s):
        if len(t) == 1 and not t.isalnum():
            n += 1
        elif len(t) == 1 and ord(t) > 0x3000:
            n += 1
        else:
            n += 1 + max(0, (len(t) - 6)) / 6 + 0.3
    return int(n)


def words(s: str) -> list[str]:
    return re.findall(r"\w+", s.lower())


def ngrams(ws, n):
    return {tuple(ws[i:i + n]) for i in range(len(ws) - n + 1)}


def jaccard(a: set, b: set) -> float:
    if not a or not b:
        return 0.0
    return len(a & b) / len(a | b)


def options_text(q) -> list[str]:
    t, c = q.get("type"), q.get("criteria")
    if t == "choice":
        return [k if v in (None, "") else f"{k}: {render(v)}" for k, v in c.items()]
    if t == "score":
        return [f"level {i}: {render(v)}" for i, v in enumerate(c)]
    c = c or {}
    return [f"false: {render(c.get('false')) or 'no, the statement does not hold'}",
            f"true: {render(c.get('true')) or 'yes, the statement holds'}"]


# ----------------------------------------------------------------------------------------- checks
def check_schema(it) -> bool:
    if not isinstance(it, dict):
        return False
    for k in ("id", "lang", "domain", "task", "difficulty", "state", "question", "answer"):
        if k not in it:
            return False
    if not all(isinstance(it[k], str) and it[k] for k in ("id", "lang", "domain", "task")):
        return False
    if it["difficulty"] not in DIFFS:
        return False
    if not isinstance(it["state"], (str, dict, list)):
        return False
    q = it["question"]
    if not isinstance(q, dict) or q.get("type") not in TYPES or "instructions" not in q:
        return False
    if not isinstance(q["instructions"], (str, dict, list)) or not render(q["instructions"]).strip():
        return False
    return True


def check_label(it) -> bool:
    q, a = it["question"], it["answer"]
    t, c = q["type"], q.get("criteria")
    if t == "choice":
        return isinstance(c, dict) and 2 <= len(c) <= 40 and isinstance(a, str) and a in c
    if t == "score":
        return (isinstance(c, list) and 2 <= len(c) <= 10 and all(v is not None and render(v).strip() for v in c)
                and isinstance(a, int) and not isinstance(a, bool) and 0 <= a < len(c))
    if c is not None and (not isinstance(c, dict) or not set(c) <= {"true", "false"}):
        return False
    return isinstance(a, bool)


def window_for(lang: str) -> int:
    return 512 if lang == "en" else 1024


def seq_tokens(it) -> int:
    q = it["question"]
    head = f"{q['type']} question: {render(q['instructions'])}"
    opts = options_text(q)
    return 4 + est_tokens(head) + sum(1 + est_tokens(o) for o in opts) + est_tokens(render(it["state"]))


# ----------------------------------------------------------------------------------------- jabr leakage
class LeakChecker:
    """Flags text sharing any word 8-gram with the eval set, or with token-set Jaccard above a threshold."""

    def __init__(self, texts: list[str], n=8, jac=0.6, min_tokens=4):
        self.n, self.jac, self.min_tokens = n, jac, min_tokens
        self.grams: set = set()
        self.sets: list[set] = []
        self.inv: dict[str, list[int]] = defaultdict(list)
        for t in texts:
            ws = words(t)
            self.grams |= ngrams(ws, n)
            s = set(ws)
            if len(s) >= min_tokens:
                idx = len(self.sets)
                self.sets.append(s)
                for w in s:
                    self.inv[w].append(idx)

    @classmethod
    def from_toml(cls, path: str) -> "LeakChecker":
        if not os.path.exists(path):
            return cls([])
        with open(path, "rb") as f:
            data = tomllib.load(f)
        texts = []
        for task in data.get("task", []):
            q = task.get("question", {}) or {}
            texts.append(render(q.get("instructions")))
            crit = q.get("criteria")
            if isinstance(crit, dict):
                texts.extend(render(v) for v in crit.values())
            elif isinstance(crit, list):
                texts.extend(render(v) for v in crit)
            for case in task.get("cases", []) or []:
                texts.append(render(case.get("state")))
        return cls([t for t in texts if t and t.strip()])

    def leaks(self, text: str) -> bool:
        ws = words(text)
        if not ws:
            return False
        if self.grams and ngrams(ws, self.n) & self.grams:
            return True
        s = set(ws)
        if len(s) < self.min_tokens:
            return False
        cand = Counter()
        for w in s:
            for i in self.inv.get(w, ()):
                cand[i] += 1
        for i, inter in cand.items():
            if inter / (len(s) + len(self.sets[i]) - inter) >= self.jac:
                return True
        return False

    def item_leaks(self, it) -> bool:
        q = it["question"]
        return self.leaks(render(it["state"])) or self.leaks(render(q.get("instructions")))


# ----------------------------------------------------------------------------------------- cue lexicons
# concept -> (regex matched against an option's "name: description" / noul instructions, state cue terms)
CONCEPTS = {
    "billing": (r"billing|payment method|invoices|refund|\bcharged\b|paid or was charged|charges, invoices", ["charged", "charge", "invoice", "refund", "billing", "credit card", "receipt", "bank statement", "overcharged"]),
    "technical": (r"technical|bug|crash|error|not working|malfunction", ["crash", "crashes", "error", "bug", "freezes", "broken", "not working", "500"]),
    "access": (r"login|log in|account access|password|sign-in|two-factor|authentication", ["log in", "login", "password", "locked out", "two-factor", "2fa", "sign in", "reset link"]),
    "delivery": (r"deliver|shipping|shipment|courier|parcel|order status|track", ["delivery", "delivered", "parcel", "package", "tracking", "courier", "shipped", "in transit"]),
    "cancel": (r"cancel|closure|end the subscription|stop a renewal", ["cancel", "cancellation", "close my account", "stop the subscription", "not renew"]),
    "violence": (r"violen|threat", ["kill", "hurt you", "break your", "beat", "blood", "find you", "shoot"]),
    "harass": (r"harass|bully|insult|attack", ["idiot", "loser", "moron", "pathetic", "stupid", "worthless", "clown"]),
    "selfharm": (r"self-harm|self harm|suicid|harm themselves|hurt oneself", ["end it", "hurt myself", "cutting", "better off without me", "pills", "goodbye letters"]),
    "spam": (r"spam|promotion|advertis|marketing", ["click", "offer", "discount", "% off", "free", "subscribe", "sale", "unsubscribe"]),
    "phishing": (r"phishing|credential|impersonat", ["verify your", "suspended", "password", "cvv", "confirm your card", "login.php", "sign in with"]),
    "emergency": (r"emergency|ambulance|life-threatening|er now", ["chest pain", "can't breathe", "cannot breathe", "unconscious", "collapsed", "slurred", "bleeding heavily", "swelling"]),
    "sql": (r"sql injection|injection", ["+ req.", "f\"select", "' +", "% (", "getparameter", "query.get("]),
    "secret": (r"secret|credential|leaked", ["sk_live", "secret_access_key", "password = \"", "ghp_", "api_token"]),
    "fraud": (r"fraud|block", ["stolen", "chargeback", "tor", "proxy"]),
    "exfil": (r"exfiltrat|data theft|data leak", ["uploaded", "usb", "personal cloud", "file-sharing"]),
    "bruteforce": (r"brute|password guessing|spraying", ["failed logins", "failed login"]),
    "malware": (r"malware|infection|malicious", ["trojan", "quarantined", ".exe", "payload", "macro"]),
    "leave": (r"leave|time off|absence", ["annual leave", "sick", "parental leave", "days off", "holiday"]),
    "payroll": (r"payroll|salary|payslip", ["payslip", "salary", "overtime", "tax code", "bonus"]),
    "complaint": (r"grievance|complaint|misconduct|harassment", ["harass", "bully", "insult", "discriminat", "formally report", "belittl", "on record", "rude", "disappointed", "unacceptable", "complain"]),
    "travel": (r"\btravel|lodging|flight", ["flight", "hotel", "taxi", "train ticket", "rental car", "parking", "abroad", "holiday", "suitcase", "luggage", "trip"]),
    "meals": (r"meals|food|restaurant", ["lunch", "dinner", "coffee", "restaurant", "catering", "sandwiches"]),
    "software": (r"software|subscription|saas|licen", ["licence", "license", "subscription", "seats", "download"]),
    "equipment": (r"equipment|hardware|device", ["laptop", "monitor", "headset", "webcam", "camera", "keyboard"]),
    "compile": (r"compil|build error|syntax", ["error ts", "syntaxerror", "cannot find symbol", "undefined:", "mismatched types"]),
    "test": (r"test failure|failing tests|tests", ["assert", "failed", "expected", "fail:"]),
    "timeout": (r"timeout|infrastructure|runner", ["timed out", "exceeded the maximum", "runner", "no space left", "rate limit", "preempted", "canceled"]),
    "dependency": (r"dependenc|package install", ["npm err", "could not find a version", "checksum mismatch", "could not resolve"]),
    "sports": (r"\bsport", ["match", "goal", "champion", "tournament", "scored", "team", "race"]),
    "business": (r"economy|business news|finance news|markets", ["shares", "revenue", "earnings", "inflation", "merger", "profit"]),
    "health": (r"\bhealth|medicine", ["study", "disease", "vaccine", "hospital", "doctors", "blood pressure"]),
    "return": (r"return|exchange", ["send them back", "send it back", "return label", "exchange", "return"]),
    "human": (r"human|agent request|real person", ["real person", "human", "agent", "speak to"]),
    "reschedule": (r"reschedul|move appointment|change the time", ["move", "push", "instead of", "change my"]),
    "book": (r"\bbook|new appointment|schedule\b", ["set up", "book", "schedule", "kickoff"]),
    "delay": (r"delay|running late", ["delay", "delayed", "late"]),
    "customs": (r"customs", ["customs", "import duty"]),
    "network": (r"network|connectivity|dns", ["packet loss", "dns", "bgp", "firewall", "vpn", "load balancer"]),
    "database": (r"database|dba|data store", ["postgres", "mysql", "replication", "deadlock", "query", "connection pool", "database"]),
    "employment": (r"employment law|employer-employee|^employment", ["fired", "dismissed", "employer", "overtime", "final wages", "promotion"]),
    "housing": (r"housing|tenan|landlord|renting", ["landlord", "tenant", "deposit", "eviction", "rent", "flat", "mould"]),
    "family": (r"family law|divorce|custody", ["divorce", "custody", "child support", "separating", "adopt", "my ex"]),
    "criminal": (r"criminal|arrest|police", ["police", "arrested", "charged with", "court date", "assault", "shoplifting"]),
    "immigration": (r"immigration|visa|citizenship", ["visa", "asylum", "residence permit", "citizenship", "sponsor"]),
    "angry": (r"angry|hostile|furious", ["ridiculous", "disgraceful", "unacceptable", "furious", "incompetent", "useless", "reporting you"]),
    "appreciative": (r"appreciative|grateful|thankful|pleased", ["thank you so much", "thanks so much", "really appreciate", "brilliant", "love the", "great support", "grateful"]),
    "confused": (r"confused|unsure|clarification", ["don't understand", "not sure", "confused", "a bit lost", "which one is right", "silly question"]),
    "feedback": (r"feedback|feature request|suggestion", ["would be great", "suggestion", "could you add", "i wish", "idea"]),
    "benefits": (r"benefit|insurance|pension", ["insurance", "pension", "dental", "gym", "benefit"]),
    "recruiting": (r"recruit|hiring", ["refer", "candidates", "opening", "position", "job posting", "interview"]),
    "politics": (r"politic|government|election", ["minister", "election", "parliament", "voters", "opposition", "cabinet", "mayoral"]),
    "technology": (r"technolog|gadget|software, internet", ["chip", "software", "browser", "cloud", "robot", "smartphone", "battery life"]),
    "entertainment": (r"entertainment|films|celebrit", ["film", "album", "band", "series", "festival", "singer", "charts"]),
    "product_q": (r"product question|product info|features or spec", ["waterproof", "battery life", "does the", "come with", "is this", "easy to assemble"]),
    "confirm": (r"confirm", ["works for me", "confirming", "see you then", "i'll be there"]),
    "availability": (r"availab", ["what times", "free next week", "are you open", "any evening slots", "slots"]),
    "supplies": (r"office supplies|stationery|consumable", ["paper", "toner", "pens", "sticky notes", "folders", "envelopes"]),
    "receipt": (r"receipt|already been made|already made", ["paid by card", "amount paid", "payment received", "receipt", "balance: 0"]),
    "quote": (r"\bquote|estimate|price offer", ["quotation", "estimate", "valid for", "proposed price", "offer for"]),
    "credit_note": (r"credit note|credit memo|reduces or cancels", ["credit note", "credit memo", "credited", "deducted"]),
    "reminder": (r"reminder|overdue|dunning", ["reminder", "overdue", "outstanding balance", "remains unpaid", "second notice"]),
    "po": (r"purchase order|\bpo\b", ["purchase order", "please supply", "we hereby order", "po number"]),
    "perf": (r"performance|inefficien|slow", ["one query per", "loads the whole", "re-read for every", "o(n*m)", "~100k items"]),
    "lint": (r"lint|formatting|style check", ["eslint", "flake8", "prettier", "would reformat", "e501"]),
    "storage": (r"storage|disk|volume", ["disk", "volume", "raid", "nfs", "bucket", "partition", "full"]),
    "application": (r"application|app team|service owners", ["exception", "deploy", "error rate", "release", "crash", "bug"]),
    "secops": (r"security|intrusion|attack", ["waf", "ssh key", "certificate", "command-and-control", "admin account", "injection"]),
    "privesc": (r"privilege|admin rights|elevation", ["domain admins", "administrator rights", "added itself", "granted full"]),
    "phish_click": (r"phishing (compromise|click)|fell for|fake page", ["clicked a link", "look-alike", "entered credentials", "pretending to be it"]),
    "positive": (r"very positive|delighted|5 stars|happy", ["love", "excellent", "perfect", "brilliant", "fantastic", "outstanding"]),
}
_CUE_RE = {c: [re.compile(r"(?<!\w)" + re.escape(t)) for t in cues] for c, (_, cues) in CONCEPTS.items()}
_OPT_RE = {c: re.compile(p, re.I) for c, (p, _) in CONCEPTS.items()}
DISAMBIG = re.compile(r"\b(cleared|resolved|back on schedule|not|n't|no|never|nothing|isn't|wasn't|don't|doesn't|didn't|rather|but|however|actually|instead|although|only|"
                      r"without|except|wrong|real problem|the issue is|the question is|the story is|the news is)\b|n't\b", re.I)


def concepts_of(text: str) -> set:
    return {c for c, r in _OPT_RE.items() if r.search(text)}


def cue_hits(state_l: str, concept: str) -> int:
    return sum(1 for r in _CUE_RE[concept] if r.search(state_l))


def background_concepts(items) -> dict[str, set]:
    """Concepts whose cues are strong (>= 2 hits) in over 40% of a task's states are topic background
    for that task (e.g. 'parcel', 'in transit' in every tracking history) and are not used as conflict cues."""
    per_task = defaultdict(list)
    for _, it in items:
        if isinstance(it, dict) and isinstance(it.get("task"), str) and "state" in it:
            per_task[it["task"]].append(render(it["state"]).lower())
    out = {}
    for t, states in per_task.items():
        bg = set()
        for c in CONCEPTS:
            strong = sum(1 for st in states if cue_hits(st, c) >= 2)
            if strong > 0.4 * len(states):
                bg.add(c)
        out[t] = bg
    return out


def cue_conflict(it, background: set = frozenset()) -> bool:
    q = it["question"]
    state_l = render(it["state"]).lower()
    if it["difficulty"] == HANDWRITTEN:
        # written as contrastive groups: a cue for another option beside the detail that decides the
        # answer is what such an item teaches, and a person checked the answer
        return False
    explicit = it["difficulty"] == "decoy" and bool(DISAMBIG.search(state_l))
    if q["type"] == "choice":
        gold = it["answer"]
        gold_c = concepts_of(f"{gold}: {render(q['criteria'][gold])}")
        gold_hits = max([cue_hits(state_l, c) for c in gold_c] or [0])
        opt_c = {k: concepts_of(f"{k}: {render(v)}") for k, v in q["criteria"].items()}
        shared = Counter(c for cs in opt_c.values() for c in cs)
        for k, cs in opt_c.items():
            if k == gold:
                continue
            # a concept matched by several options does not discriminate between them
            for c in {c for c in cs if shared[c] == 1} - gold_c - background:
                h = cue_hits(state_l, c)
                if not explicit and ((h >= 2 and h >= gold_hits) or (h >= 1 and gold_c and gold_hits == 0)):
                    return True
        return False
    if q["type"] == "noul" and it["answer"] is False:
        for c in concepts_of(render(q["instructions"])) - background:
            if cue_hits(state_l, c) >= 3 and not explicit:
                return True
    return False


# ----------------------------------------------------------------------------------------- main
def load_raw(paths):
    items = []
    for p in paths:
        with open(p, encoding="utf-8") as f:
            for ln, line in enumerate(f):
                line = line.strip()
                if not line:
                    continue
                try:
                    it = json.loads(line)
                    if os.sep + "handwritten" + os.sep in p and isinstance(it, dict):
                        it.setdefault("difficulty", HANDWRITTEN)
                    items.append((p, it))
                except json.JSONDecodeError:
                    items.append((p, {"_bad": line[:80]}))
    return items


def task_split(task: str, qtype: str) -> str:
    """English: about one task in DEV_MOD goes to dev, by a hash of its name; SCORE_DEV_SLOTS in
    DEV_MOD for score tasks.

    Score tasks are few, and calibration error measured on a small sample is mostly noise: on the
    ~120 score rows one slot gave, a perfectly calibrated model would show an expected ECE of about
    0.08 (``ece_floor`` in training/calibrate.py's report), so a 0.05 target could not be measured at all.
    """
    slots = SCORE_DEV_SLOTS if qtype == "score" else 1
    return "dev" if int(hashlib.sha1(task.encode()).hexdigest(), 16) % DEV_MOD < slots else "train"


def multilingual_dev_tasks(items) -> set[str]:
    """The other languages share 20 task templates; one template of each question type (the lowest
    sha1 of its name) is held out in every one of them.

    A hash of the task name modulo DEV_MOD would hold out a single template (of one type). Holding a
    template out in one language only would leave its translations in training, so the dev split
    would measure a known task in a new language, which is easier than the held-out tasks of the
    English split. Held out everywhere, both splits measure tasks the model has not seen.
    """
    by_type = defaultdict(set)
    for i in items:
        if i["lang"] != "en" and i["difficulty"] != HANDWRITTEN:  # hand-written items split by task (split_of)
            by_type[i["question"]["type"]].add(i["task"])
    return {min(tasks, key=lambda t: hashlib.sha1(t.encode()).hexdigest()) for tasks in by_type.values()}


def split_of(item, ml_dev: set[str]) -> str:
    if item["lang"] == "en" or item["difficulty"] == HANDWRITTEN:
        return task_split(item["task"], item["question"]["type"])
    return "dev" if item["task"] in ml_dev else "train"


def screen(items, leak: LeakChecker):
    kept, dropped = [], Counter()
    drop_by_src = defaultdict(Counter)
    seen_exact = set()
    by_task_shingles: dict[str, list[set]] = defaultdict(list)
    examples = defaultdict(list)
    bg = background_concepts(items)
    for src, it in items:
        reason = None
        if not check_schema(it):
            reason = "schema"
        elif not check_label(it):
            reason = "label_invalid"
        elif not render(it["state"]).strip() or it["state"] in ({}, []):
            reason = "empty_state"
        elif seq_tokens(it) > window_for(it["lang"]):
            reason = "overlong"
        elif leak.item_leaks(it):
            reason = "jabr_leak"
        else:
            q = it["question"]
            key = hashlib.sha1((render(it["state"]).strip().lower() + "\x00" + render(q["instructions"]).strip().lower() + "\x00" + q["type"]
                                + "\x00" + json.dumps(sorted(map(str, (q.get("criteria") or {}))) if q["type"] != "score" else q["criteria"], ensure_ascii=False))
                               .encode()).hexdigest()
            if key in seen_exact:
                reason = "duplicate_exact"
            else:
                sh = ngrams(words(render(it["state"])), 3) or {tuple(words(render(it["state"])))}
                # a hand-written contrastive group is the same state with one detail changed, on purpose
                if it["difficulty"] != HANDWRITTEN and any(jaccard(sh, o) >= 0.8 for o in by_task_shingles[it["task"]]):
                    reason = "duplicate_near"
                elif cue_conflict(it, bg.get(it["task"], set())):
                    reason = "cue_conflict"
                else:
                    seen_exact.add(key)
                    by_task_shingles[it["task"]].append(sh)
        if reason:
            dropped[reason] += 1
            drop_by_src[it.get("lang", "?") if isinstance(it, dict) else "?"][reason] += 1
            if len(examples[reason]) < 5:
                examples[reason].append(it.get("id", "?") if isinstance(it, dict) else "?")
        else:
            kept.append(it)
    return kept, dropped, drop_by_src, examples


def counts(items):
    out = {}
    for f in ("lang", "domain", "difficulty"):
        out[f] = dict(sorted(Counter(i[f] for i in items).items()))
    out["type"] = dict(sorted(Counter(i["question"]["type"] for i in items).items()))
    out["lang_type"] = dict(sorted(Counter(f"{i['lang']}/{i['question']['type']}" for i in items).items()))
    out["tasks"] = len({i["task"] for i in items})
    out["total"] = len(items)
    return out


def main(argv=None):
    paths = []
    en = os.path.join(ROOT, "en", "raw.jsonl")
    if os.path.exists(en):
        paths.append(en)
    for folder in ("multilingual", "handwritten"):
        paths += sorted(glob.glob(os.path.join(ROOT, folder, "**", "*.jsonl"), recursive=True))
    raw = load_raw(paths)
    leak = LeakChecker.from_toml(JABR)
    kept, dropped, drop_by_lang, examples = screen(raw, leak)
    ml_dev = multilingual_dev_tasks(kept)
    splits = {"train": [], "dev": []}
    for i in kept:
        splits[split_of(i, ml_dev)].append(i)
    train, dev = splits["train"], splits["dev"]
    os.makedirs(BUILD, exist_ok=True)
    for name, rows in (("train", train), ("dev", dev)):
        with open(os.path.join(BUILD, f"{name}.jsonl"), "w", encoding="utf-8") as f:
            for r in rows:
                f.write(json.dumps(r, ensure_ascii=False) + "\n")
    n = len(raw)
    report = {
        "inputs": {os.path.relpath(p, REPO): sum(1 for s, _ in raw if s == p) for p in paths},
        "jabr_file_found": os.path.exists(JABR),
        "raw_total": n,
        "kept_total": len(kept),
        "dropped_total": sum(dropped.values()),
        "drop_rate": round(sum(dropped.values()) / n, 4) if n else 0.0,
        "drops": {r: {"count": dropped.get(r, 0), "rate": round(dropped.get(r, 0) / n, 4) if n else 0.0} for r in REASONS},
        "drops_by_lang": {k: dict(v) for k, v in drop_by_lang.items()},
        "drop_examples": dict(examples),
        "train": counts(train),
        "dev": counts(dev),
        "all_kept": counts(kept),
        "dev_split": f"English by task: sha1(task) % {DEV_MOD} == 0 (score tasks: < {SCORE_DEV_SLOTS}); every other language: the task template of each question type with the lowest sha1(task), in every language",
    }
    with open(os.path.join(BUILD, "report.json"), "w", encoding="utf-8") as f:
        json.dump(report, f, indent=1, ensure_ascii=False)
    print(f"raw {n}  kept {len(kept)}  train {len(train)}  dev {len(dev)}  dropped {dict(dropped)}")
    return report


if __name__ == "__main__":
    main(sys.argv[1:])
