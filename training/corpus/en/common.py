"""Shared machinery for the English corpus generators.

A *family* is a latent labelling of states (e.g. which team a ticket belongs to, or how severe an
alert is).  Every family hands out content for each label at three difficulties and the task
builder turns it into many distinct *tasks* (question definitions): choice views with different
wording / option naming / option subsets / null descriptions, noul views per label and (for ordered
families) score views and threshold nouls.  All randomness flows from one seeded ``random.Random``.
"""
from __future__ import annotations

import hashlib
import json
import random
import re
from dataclasses import dataclass, field
from typing import Any, Callable

# --------------------------------------------------------------------------------------------
# Entity banks (all invented)
# --------------------------------------------------------------------------------------------
FIRST = ["Maria", "James", "Aisha", "Tom", "Priya", "Lukas", "Chen", "Fatima", "Diego", "Hannah",
         "Kwame", "Sofia", "Ben", "Yuki", "Omar", "Elena", "Raj", "Grace", "Ivan", "Nadia", "Sam",
         "Leila", "Marcus", "Ingrid", "Tariq", "Zoe", "Pablo", "Mei", "Daniel", "Amara", "Felix",
         "Rosa", "Arjun", "Claire", "Hugo", "Nia", "Oscar", "Lina", "Victor", "Jade"]
LAST = ["Okafor", "Schmidt", "Nguyen", "Patel", "Garcia", "Kowalski", "Brown", "Haddad", "Rossi",
        "Tanaka", "Mensah", "Larsen", "Dubois", "Kim", "Alvarez", "Novak", "Singh", "Murphy",
        "Costa", "Ibrahim", "Fischer", "Walsh", "Moreau", "Ahmed", "Reyes", "Lindqvist", "Osei"]
COMPANY = ["Northwind Labs", "Bluepeak Retail", "Harbor & Finch", "Quillstone", "Vantage Freight",
           "Lumen Health", "Orchid Systems", "Cobalt Insurance", "Redwood Analytics", "Tessel Bank",
           "Fernway Foods", "Brightloop", "Kestrel Logistics", "Mosaic Learning", "Arcadia Hotels",
           "Pinegate Software", "Solace Clinics", "Ironbark Tools", "Nimbus Cloudworks", "Saffron Kitchens"]
PRODUCT = ["the mobile app", "the web dashboard", "the desktop client", "the smart thermostat",
           "the wireless earbuds", "the standing desk", "the espresso machine", "the fitness tracker",
           "the photo editor", "the accounting plugin", "the router", "the e-reader", "the robot vacuum",
           "the project board", "the invoicing module", "the booking widget", "the password manager",
           "the video doorbell", "the label printer", "the analytics export"]
CITY = ["Lisbon", "Denver", "Nairobi", "Osaka", "Leeds", "Toronto", "Austin", "Lyon", "Krakow",
        "Melbourne", "Dublin", "Accra", "Seattle", "Porto", "Manchester", "Calgary", "Rotterdam",
        "Cape Town", "Monterrey", "Gothenburg"]
WEEKDAY = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
MONTH = ["January", "February", "March", "April", "May", "June", "July", "August", "September",
         "October", "November", "December"]
PLAN = ["Starter", "Pro", "Team", "Business", "Enterprise", "Basic", "Premium", "Family"]
CHANNEL = ["email", "chat", "web_form", "phone_transcript", "app_feedback", "social"]


def person(rng):
    return f"{rng.choice(FIRST)} {rng.choice(LAST)}"


def fill(rng: random.Random, text: str, extra: dict | None = None) -> str:
    """Fill {slot} placeholders with invented entities."""
    def rep(m):
        k = m.group(1)
        if extra and k in extra:
            v = extra[k]
            return str(v(rng) if callable(v) else v)
        if k == "name":
            return rng.choice(FIRST)
        if k == "fullname":
            return person(rng)
        if k == "company":
            return rng.choice(COMPANY)
        if k == "product":
            return rng.choice(PRODUCT)
        if k == "city":
            return rng.choice(CITY)
        if k == "day":
            return rng.choice(WEEKDAY)
        if k == "month":
            return rng.choice(MONTH)
        if k == "date":
            return f"{rng.choice(MONTH)} {rng.randint(1, 28)}"
        if k == "order":
            return f"#{rng.randint(10000, 99999)}"
        if k == "amount":
            return f"${rng.randint(12, 480)}.{rng.choice(['00', '50', '99', '25', '40'])}"
        if k == "n":
            return str(rng.randint(2, 9))
        if k == "nn":
            return str(rng.randint(11, 60))
        if k == "plan":
            return rng.choice(PLAN)
        if k == "hours":
            return str(rng.randint(2, 30))
        if k == "pct":
            return str(rng.randint(3, 40))
        if k == "ver":
            return f"{rng.randint(1, 9)}.{rng.randint(0, 20)}.{rng.randint(0, 9)}"
        if k == "host":
            return f"{rng.choice(['web', 'api', 'db', 'cache', 'worker', 'auth', 'batch'])}-{rng.randint(1, 40):02d}"
        if k == "ip":
            return f"{rng.randint(11, 223)}.{rng.randint(0, 255)}.{rng.randint(0, 255)}.{rng.randint(1, 254)}"
        if k == "email":
            return f"{rng.choice(FIRST).lower()}.{rng.choice(LAST).lower()}@{rng.choice(['example.com', 'mail.test', 'corp.example'])}"
        return m.group(0)
    return re.sub(r"\{(\w+)\}", rep, text)


# --------------------------------------------------------------------------------------------
# Family / label definitions
# --------------------------------------------------------------------------------------------
@dataclass
class Label:
    key: str                       # canonical key, snake_case
    names: list[str]               # alternative option names (words); first = plain words form
    descs: list[str]               # option descriptions (several wordings)
    nq: list[str] = field(default_factory=list)     # noul questions "is this X?" for this label
    easy: list[str] = field(default_factory=list)
    boundary: list[str] = field(default_factory=list)
    decoy: list[tuple[str, str]] = field(default_factory=list)  # (surface-cue label, text)
    details: list[str] = field(default_factory=list)  # label-consistent extra sentences


@dataclass
class Family:
    id: str
    domain: str
    labels: list[Label]
    choice_q: list[str]            # choice instructions
    ordered: bool = False          # labels are levels low->high
    score_q: list[str] = field(default_factory=list)
    wrap: Callable | None = None   # wrap(rng, text, label_key) -> state
    gen: Callable | None = None    # custom gen(rng, label_key, difficulty) -> (state, difficulty)
    n_choice: int = 6
    n_score: int = 4
    noul_per_label: int = 1
    threshold_q: list[tuple[int, str]] = field(default_factory=list)  # (k, "is it at least k?")
    items_per_task: int = 22
    subsets: bool = True
    code_names: bool = True
    extra_tasks: Callable | None = None   # extra_tasks(rng, family) -> list[Task]
    task_source: Callable | None = None   # task_source(task) -> that task's custom_gen, for built tasks without one
    context: list[str] = field(default_factory=list)  # label-neutral sentences mixed into states
    distractors: list[tuple[str, str]] = field(default_factory=list)  # never-gold options (name words, description)
    filler: list[str] = field(default_factory=list)   # label-neutral paragraphs used to lengthen some states


@dataclass
class Task:
    id: str
    family: Family
    qtype: str
    instructions: Any
    criteria: Any
    # maps internal label key -> option key (choice) / level (score) / bool (noul)
    answer_of: Callable
    labels: list[str]               # label keys used for sampling states
    weights: list[float] | None = None
    custom_gen: Callable | None = None  # task-specific gen(rng, label_key, difficulty) -> (state, difficulty) | None


def _style(name_words: str, style: str) -> str:
    w = re.sub(r"[^A-Za-z0-9 ]", " ", name_words).split()
    if style == "snake":
        return "_".join(x.lower() for x in w)
    if style == "kebab":
        return "-".join(x.lower() for x in w)
    if style == "upper":
        return "_".join(x.upper() for x in w)
    if style == "title":
        return " ".join(x[:1].upper() + x[1:] for x in w)
    if style == "camel":
        return w[0].lower() + "".join(x[:1].upper() + x[1:].lower() for x in w[1:])
    return " ".join(x.lower() for x in w)


CODE_SETS = [
    lambda i: chr(ord("A") + i),
    lambda i: f"opt{i + 1}",
    lambda i: f"C{i + 1:02d}",
    lambda i: f"{i + 1}",
    lambda i: f"cat_{chr(ord('a') + i)}",
]


def make_choice_options(rng, fam: Family, keys: list[str], variant: int):
    """Return (criteria dict, mapping label->option key)."""
    labs = {l.key: l for l in fam.labels}
    styles = ["snake", "words", "title", "upper", "kebab", "camel", "snake", "words"]
    use_codes = fam.code_names and variant % 7 == 5
    style = styles[variant % len(styles)]
    # description mode: full, null, mixed
    dmode = ["full", "null", "full", "mixed", "full", "null"][variant % 6]
    if use_codes:
        dmode = "full"
    crit, mapping = {}, {}
    code_fn = CODE_SETS[variant % len(CODE_SETS)]
    for i, k in enumerate(keys):
        lab = labs[k]
        if use_codes:
            name = code_fn(i)
        else:
            nm = lab.names[(variant // 2) % len(lab.names)] if variant % 3 else lab.names[0]
            name = _style(nm, style)
        desc = lab.descs[variant % len(lab.descs)]
        if dmode == "null" or (dmode == "mixed" and rng.random() < 0.5):
            desc = None
        if name in crit:
            name = name + f"_{i}"
        crit[name] = desc
        mapping[k] = name
    return crit, mapping


def shuffled_dict(rng, d: dict) -> dict:
    items = list(d.items())
    rng.shuffle(items)
    return dict(items)


def build_tasks(rng: random.Random, fam: Family) -> list[Task]:
    tasks: list[Task] = []
    keys_all = [l.key for l in fam.labels]
    labs = {l.key: l for l in fam.labels}
    # ---- choice views
    for v in range(fam.n_choice):
        keys = list(keys_all)
        if fam.subsets and not fam.ordered and len(keys) >= 5 and v % 3 == 2:
            m = rng.randint(3, len(keys) - 1)
            keys = rng.sample(keys, m)
            keys = [k for k in keys_all if k in keys]
        elif fam.subsets and not fam.ordered and len(keys) >= 3 and v == 1:
            pair = rng.sample(keys, 2)
            keys = [k for k in keys_all if k in pair]   # binary choice view
        crit, mapping = make_choice_options(rng, fam, keys, v)
        if fam.distractors and v % 4 == 3:
            style = ["snake", "words", "title", "upper", "kebab", "camel", "snake", "words"][v % 8]
            with_desc = any(d is not None for d in crit.values())
            for nm, desc in rng.sample(fam.distractors, min(len(fam.distractors), rng.randint(2, 6))):
                name = _style(nm, style)
                if name not in crit and len(crit) < 12:
                    crit[name] = desc if with_desc else None
        instr = fam.choice_q[v % len(fam.choice_q)]
        if v % 5 == 4:  # object instructions form
            instr = {"question": instr, "note": rng.choice([
                "Pick exactly one option.", "Choose the single best fitting option.",
                "Answer with the option that fits best.", "Only one label applies."])}
        tasks.append(Task(f"{fam.id}-choice{v}", fam, "choice", instr, crit,
                          (lambda mp: (lambda k: mp[k]))(mapping), keys))
    # ---- noul per label
    if not fam.ordered:
        for lab in fam.labels:
            for j in range(min(fam.noul_per_label, len(lab.nq))):
                q = lab.nq[j]
                cm = (hash_int(fam.id + lab.key + str(j)) % 4)
                if cm == 0:
                    crit = None
                elif cm == 1:
                    crit = {"true": lab.descs[0], "false": rng.choice([
                        "Anything else", "It is about something different",
                        "The statement does not apply", "Some other category"])}
                elif cm == 2:
                    crit = {"true": lab.descs[-1]}
                else:
                    crit = {"true": "Yes", "false": "No"}
                others = [k for k in keys_all if k != lab.key]
                tasks.append(Task(f"{fam.id}-noul-{lab.key}{j}", fam, "noul", q, crit,
                                  (lambda t: (lambda k: k == t))(lab.key),
                                  [lab.key] + others,
                                  [len(others)] + [1.0] * len(others)))
    # ---- ordered families: score views and thresholds
    if fam.ordered:
        for v in range(fam.n_score):
            crit = [l.descs[v % len(l.descs)] for l in fam.labels]
            instr = fam.score_q[v % len(fam.score_q)]
            tasks.append(Task(f"{fam.id}-score{v}", fam, "score", instr, crit,
                              (lambda k: keys_all.index(k)), keys_all))
        for j, (thr, q) in enumerate(fam.threshold_q):
            above = keys_all[thr:]
            below = keys_all[:thr]
            w = [1.0 / len(below)] * len(below) + [1.0 / len(above)] * len(above)
            tasks.append(Task(f"{fam.id}-noul-ge{thr}-{j}", fam, "noul", q, None,
                              (lambda ab: (lambda k: k in ab))(set(above)), keys_all, w))
    if fam.task_source:
        for t in tasks:
            t.custom_gen = t.custom_gen or fam.task_source(t)
    if fam.extra_tasks:
        tasks.extend(fam.extra_tasks(rng, fam))
    return tasks


def hash_int(s: str) -> int:
    return int(hashlib.md5(s.encode()).hexdigest()[:8], 16)


DIFF_P = [("easy", 0.42), ("boundary", 0.30), ("decoy", 0.28)]


def pick_diff(rng):
    r = rng.random()
    acc = 0
    for d, p in DIFF_P:
        acc += p
        if r < acc:
            return d
    return "easy"


def content_for(rng, fam: Family, key: str, diff: str, cue: str | None = None, used=None):
    """Return (text, difficulty, template) from the label's banks, preferring unused templates."""
    lab = next(l for l in fam.labels if l.key == key)
    if diff == "decoy" and lab.decoy:
        pool = [t for c, t in lab.decoy if cue is None or c == cue] or [t for c, t in lab.decoy]
        d = "decoy"
    elif diff in ("boundary", "decoy") and lab.boundary:
        pool, d = lab.boundary, "boundary"
    else:
        pool, d = lab.easy, "easy"
    if used is not None:
        fresh = [t for t in pool if t not in used]
        if not fresh:
            fresh = [t for t in lab.easy + lab.boundary if t not in used]
            d = None
        if not fresh:
            return None, None, None
        pool = fresh
    t = rng.choice(pool)
    if d is None:
        d = "easy" if t in lab.easy else "boundary"
    text = fill(rng, t)
    if lab.details and d != "decoy" and rng.random() < 0.6:
        text = " ".join([text] + [fill(rng, x) for x in rng.sample(lab.details, min(len(lab.details), rng.randint(1, 2)))])
    if fam.context and rng.random() < 0.55:
        ctx = [fill(rng, c) for c in rng.sample(fam.context, min(len(fam.context), rng.choice([1, 1, 2])))]
        text = " ".join(ctx + [text]) if rng.random() < 0.5 else " ".join([text] + ctx)
    return text, d, t


def bank_state(rng, fam: Family, key: str, diff: str, cue: str | None, used: set, max_fillers: int = 4):
    """A state from the label's banks (content_for), sometimes between filler paragraphs, wrapped by
    the family's wrapper; the template is added to ``used``. Returns (state, difficulty) or (None, None)."""
    text, diff, tpl = content_for(rng, fam, key, diff, cue, used)
    if text is None:
        return None, None
    used.add(tpl)
    if fam.filler and rng.random() < 0.4:
        paras = [fill(rng, p) for p in rng.sample(fam.filler, min(len(fam.filler), rng.randint(1, max_fillers)))]
        k = rng.randint(0, len(paras))
        text = "\n\n".join(paras[:k] + [text] + paras[k:])
    return (fam.wrap(rng, text, key) if fam.wrap else text), diff


def gen_item(rng, task: Task, n: int, used: set | None = None, want=None):
    fam = task.family
    # pick label (optionally only labels whose answer equals `want`, to balance noul truth)
    labels, weights = task.labels, task.weights or [1.0] * len(task.labels)
    if want is not None:
        pairs = [(k, w) for k, w in zip(labels, weights) if task.answer_of(k) == want]
        labels, weights = [p[0] for p in pairs], [p[1] for p in pairs]
    key = rng.choices(labels, weights=weights)[0]
    diff = pick_diff(rng)
    cue = None
    if task.qtype == "noul" and diff == "decoy" and not task.answer_of(key):
        # false item whose surface cue points at the asked label, if such decoy exists
        target = task.labels[0]
        lab = next(l for l in fam.labels if l.key == key)
        if any(c == target for c, _ in lab.decoy):
            cue = target
    g = task.custom_gen or fam.gen
    if g:
        res = g(rng, key, diff)
        if res is None:
            return None
        state, diff = res
        sig = json.dumps(state, sort_keys=True)
        if used is not None:
            if sig in used:
                return None
            used.add(sig)
    else:
        state, diff = bank_state(rng, fam, key, diff, cue, used)
        if state is None:
            return None
    ans = task.answer_of(key)
    crit = task.criteria
    if task.qtype == "choice":
        crit = shuffled_dict(rng, crit)
    return {
        "id": f"en-{task.id}-{n}",
        "lang": "en",
        "domain": fam.domain,
        "task": task.id,
        "difficulty": diff,
        "state": state,
        "question": {"type": task.qtype, "instructions": task.instructions, "criteria": crit},
        "answer": ans,
    }


# --------------------------------------------------------------------------------------------
# Generic wrappers
# --------------------------------------------------------------------------------------------
GREET = ["Hi,", "Hello,", "Hi there,", "Good morning,", "Hey,", "Dear support team,", "Hello team,", "", "", ""]
SIGN = ["Thanks,\n{name}", "Regards, {fullname}", "Cheers, {name}", "Thank you.", "- {name}", "", "", "Best,\n{fullname}"]
NEUTRAL_SUBJ = ["Question", "Need some help", "Follow-up", "Re: my account", "Hello", "Quick one",
                "Support request", "(no subject)", "Please read", "Re: your last email"]
ASSIST_OPEN = ["Hi! How can I help you today?", "Thanks for contacting us. What can I do for you?",
               "Hello, you're chatting with the support assistant. What's going on?",
               "Welcome back. How can I help?"]
ASSIST_ACK = ["I'm sorry to hear that. Could you tell me a bit more?", "Thanks for the details. Anything else I should know?",
              "Understood. Let me look into it.", "Got it. Can you share a few more details?"]


def wrap_message(rng, text, key=None):
    """Customer message as plain email text, JSON ticket or a conversation."""
    r = rng.random()
    if r < 0.5:
        g = rng.choice(GREET)
        s = fill(rng, rng.choice(SIGN))
        parts = [p for p in (g, text, s) if p]
        return "\n\n".join(parts) if rng.random() < 0.5 else " ".join(parts).replace("\n", " ")
    if r < 0.75:
        return {
            "ticket_id": f"T-{rng.randint(100000, 999999)}",
            "channel": rng.choice(CHANNEL),
            "customer": {"name": person(rng), "plan": rng.choice(PLAN), "tenure_months": rng.randint(1, 70)},
            "subject": rng.choice(NEUTRAL_SUBJ),
            "body": text,
        }
    sents = split_sents(text)
    if len(sents) >= 2 and rng.random() < 0.6:
        cut = max(1, len(sents) // 2)
        turns = [{"role": "assistant", "content": rng.choice(ASSIST_OPEN)},
                 {"role": "user", "content": " ".join(sents[:cut])},
                 {"role": "assistant", "content": rng.choice(ASSIST_ACK)},
                 {"role": "user", "content": " ".join(sents[cut:])}]
    else:
        turns = [{"role": "assistant", "content": rng.choice(ASSIST_OPEN)},
                 {"role": "user", "content": text}]
    if rng.random() < 0.35:
        nm = rng.choice(FIRST)
        pre = [{"role": "user", "content": rng.choice(["Hi", "Hello?", "hi there", "Good afternoon"])},
               {"role": "assistant", "content": rng.choice(["Hello! Before we start, could I have your first name?", "Hi! May I ask your name?"])},
               {"role": "user", "content": rng.choice([nm, f"It's {nm}.", f"{nm} here."])},
               {"role": "assistant", "content": f"Thanks, {nm}. " + rng.choice(["What can I do for you?", "How can I help today?", "Go ahead, I'm listening."])}]
        turns = pre + turns[1:]
    return turns


def split_sents(text):
    return [s for s in re.split(r"(?<=[.!?])\s+", text.strip()) if s]


def wrap_plain(rng, text, key=None):
    return text


def dump(items, path):
    with open(path, "w", encoding="utf-8") as f:
        for it in items:
            f.write(json.dumps(it, ensure_ascii=False) + "\n")
