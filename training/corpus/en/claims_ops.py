"""Statement-verification noul tasks over operational states.

Agent traces with tool calls/results, CI/CD and deployment logs, incident timelines, monitoring
alerts, API/database records, access logs, code review threads, data pipeline runs and calendars.
Every task is one fixed statement or question; its generator composes a state in which the
statement holds (truth True) or not.  False states are either a clear absence (easy), a near miss
that looks alike (boundary: the tool was called after answering, a different test failed, the
rollback was only proposed) or carry a misleading surface cue (decoy: "no rollback needed",
"All done!" after a failed call).  All content is invented for this corpus.
"""
import json
import re

from common import Family, Label, Task, person, FIRST, LAST, COMPANY, CITY, PLAN, WEEKDAY, PRODUCT

# --------------------------------------------------------------------------------------------
# shared helpers
# --------------------------------------------------------------------------------------------
SERVICES = ["checkout-api", "ledger-svc", "search-gateway", "auth-service", "media-resizer", "billing-worker",
            "inventory-sync", "notify-hub", "profile-api", "pricing-engine", "cart-service", "geo-lookup",
            "report-builder", "feed-ranker", "payments-core", "invoice-renderer", "session-store", "quote-api"]
TEAMS = ["platform", "payments", "growth", "data", "identity", "storefront", "infra", "mobile"]


def avail(diff, *opts):
    """The requested difficulty if this truth value has such a variant, else boundary, else easy."""
    return diff if diff in opts else ("boundary" if "boundary" in opts else "easy")


def ver(rng):
    return f"v{rng.randint(1, 9)}.{rng.randint(0, 30)}.{rng.randint(0, 9)}"


def bump(v):
    a, b, c = v[1:].split(".")
    return f"v{a}.{b}.{int(c) + 1}"


def uid(rng, pre, lo=1000, hi=99999):
    return f"{pre}{rng.randint(lo, hi)}"


def handle(rng):
    return f"{rng.choice(FIRST).lower()}.{rng.choice(LAST).lower()}"


def hms(t):
    return f"{t // 3600:02d}:{t % 3600 // 60:02d}:{t % 60:02d}"


def hm(t):
    return f"{t // 3600:02d}:{t % 3600 // 60:02d}"


def day(rng):
    return f"2026-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"


class Clock:
    """Monotonic timestamps in one of three formats."""

    def __init__(self, rng, style=None):
        self.rng, self.t, self.day = rng, rng.randint(3600, 17 * 3600), day(rng)
        self.style = style or rng.choice(["iso", "hms", "bracket"])

    def fmt(self, t=None):
        t = self.t if t is None else t
        if self.style == "iso":
            return f"{self.day}T{hms(t)}Z"
        if self.style == "bracket":
            return f"[{self.day} {hms(t)}]"
        return hms(t)

    def tick(self, a=2, b=90):
        self.t += self.rng.randint(a, b)
        return self.fmt()


def render_log(rng, entries, clk=None):
    """entries: (level, component, message); rendered as text lines or a JSON array of records."""
    clk = clk or Clock(rng)
    rows = [(clk.tick(), lv, comp, msg) for lv, comp, msg in entries]
    r = rng.random()
    if r < 0.25:
        return [{"ts": ts, "level": lv, "source": comp, "msg": msg} for ts, lv, comp, msg in rows]
    if r < 0.6:
        return "\n".join(f"{ts} {lv:<5} {comp}: {msg}" for ts, lv, comp, msg in rows)
    return "\n".join(f"{ts} [{lv}] [{comp}] {msg}" for ts, lv, comp, msg in rows)


def sprinkle(rng, core, noise, k):
    """Insert k noise entries at random places, keeping the order of the core entries."""
    out = list(core)
    for e in rng.sample(noise, min(k, len(noise))):
        out.insert(rng.randint(0, len(out)), e)
    return out


# agent trace steps: ("user", text) ("assistant", text) ("call", name, args) ("result", obj)
def U(t):
    return ("user", t)


def A(t):
    return ("assistant", t)


def C(name, args):
    return ("call", name, args)


def R(obj):
    return ("result", obj)


def render_trace(rng, steps, extra=None):
    r = rng.random()
    if r < 0.42:
        out, last = [], None
        for s in steps:
            if s[0] == "call":
                last = s[1]
                out.append({"role": "assistant", "content": json.dumps({"tool_call": {"name": s[1], "arguments": s[2]}})})
            elif s[0] == "result":
                out.append({"role": "tool", "name": last, "content": json.dumps(s[1])})
            else:
                out.append({"role": s[0], "content": s[1]})
        return out
    if r < 0.8:
        st = []
        for i, s in enumerate(steps, 1):
            if s[0] == "call":
                st.append({"step": i, "type": "tool_call", "tool": s[1], "input": s[2]})
            elif s[0] == "result":
                st.append({"step": i, "type": "tool_result", "output": s[1]})
            else:
                st.append({"step": i, "type": f"{s[0]}_message", "text": s[1]})
        obj = {"trace_id": f"tr_{rng.randint(16 ** 5, 16 ** 6 - 1):x}"}
        if extra:
            obj.update(extra)
        obj["steps"] = st
        return obj
    lines = []
    for i, s in enumerate(steps, 1):
        if s[0] == "call":
            lines.append(f"{i}. CALL {s[1]} {json.dumps(s[2])}")
        elif s[0] == "result":
            lines.append(f"{i}. RESULT {json.dumps(s[1])}")
        else:
            lines.append(f"{i}. {s[0].upper()}: {s[1]}")
    return "\n".join(lines)


ERRORS = [{"error": "timeout after 30s"}, {"error": "503 Service Unavailable"}, {"status": "error", "message": "upstream connection reset"},
          {"error": "rate limited, try again"}, {"status": 500, "error": "internal error"}]


# --------------------------------------------------------------------------------------------
# agent traces
# --------------------------------------------------------------------------------------------
def kb_fact(rng):
    """(user question, search query, retrieved snippet, grounded answer) about invented facts."""
    c, n, plan = rng.choice(COMPANY), rng.randint(3, 95), rng.choice(PLAN)
    k = rng.randrange(5)
    if k == 0:
        return (f"How many days do {plan} customers at {c} have to ask for a refund?", f"{c} refund window {plan}",
                f"{plan} plan: refunds are accepted within {n} days of purchase.", f"{plan} customers have {n} days to request a refund.")
    if k == 1:
        p = rng.choice(["the photo editor", "the web dashboard", "the project board", "the desktop client", "the mobile app", "the invoicing module"])
        return (f"What's the maximum upload size in {p}?", f"upload size limit {p}", f"Uploads in {p} are limited to {n} MB per file.",
                f"The limit is {n} MB per file.")
    if k == 2:
        city, d, h = rng.choice(CITY), rng.choice(WEEKDAY[:5]), rng.randint(7, 10)
        return (f"When does the {city} office open on {d}s?", f"{city} office hours", f"The {city} office opens at {h}:00 on weekdays.",
                f"It opens at {h}:00.")
    if k == 3:
        return (f"How long does {c} keep audit logs?", "audit log retention", f"Audit logs are retained for {n} months, then deleted.",
                f"Audit logs are kept for {n} months.")
    return (f"What's the API rate limit on the {plan} tier?", f"rate limit {plan} tier", f"{plan} tier: {n * 10} requests per minute.",
            f"You get {n * 10} requests per minute on {plan}.")


SEARCH_TOOLS = ["search_docs", "kb_search", "web_search", "search_knowledge_base", "retrieve_passages"]
OTHER_TOOLS = [("get_user_profile", {"user": "current"}), ("get_time", {"tz": "UTC"}), ("calculator", {"expr": "2*7"}),
               ("get_account_plan", {"account": "self"})]


def g_search_first(rng, fact, diff):
    q, query, snip, ans = kb_fact(rng)
    tool = rng.choice(SEARCH_TOOLS)
    hit = R({"results": [{"title": query.title(), "snippet": snip}]})
    if fact:
        d = avail(diff, "easy", "boundary")
        steps = [U(q), C(tool, {"query": query}), hit, A(ans)]
        if d == "boundary":
            o = rng.choice(OTHER_TOOLS)
            steps = [U(q), C(o[0], o[1]), R({"ok": True}), C(tool, {"query": query + " 2026"}), R({"results": []}),
                     C(tool, {"query": query}), hit, A(ans)][rng.choice([0, 3]):]
            steps = [U(q)] + [s for s in steps if s[0] != "user"]
        return render_trace(rng, steps), d
    d = avail(diff, "easy", "boundary", "decoy")
    if d == "easy":
        steps = [U(q), A(ans)]
    elif d == "boundary":
        steps = [U(q), A(ans), U(rng.choice(["Are you sure? Please double-check.", "Can you verify that?", "Source?"])),
                 C(tool, {"query": query}), hit, A("Checked: " + ans[0].lower() + ans[1:])]
    else:
        o = rng.choice(OTHER_TOOLS)
        pre = rng.choice(["According to the knowledge base, ", "I searched our docs: ", "Based on my search, "])
        ans = pre + ans[0].lower() + ans[1:]
        steps = [U(q), C(o[0], o[1]), R({"ok": True}), A(ans)] if rng.random() < 0.5 else [U(q), A(ans)]
    return render_trace(rng, steps), d


FILE_SETS = [("/var/log/{s}", "*.log.gz"), ("~/Downloads", "*.dmg"), ("/data/exports/{s}", "*.csv"), ("/tmp/build-cache", "*"),
             ("~/Pictures/screenshots", "*.png"), ("/srv/backups/{s}", "*.tar")]


def g_confirm_delete(rng, fact, diff):
    folder, pat = rng.choice(FILE_SETS)
    folder = folder.format(s=rng.choice(SERVICES))
    n = rng.randint(3, 480)
    req = rng.choice([f"Clean up the old files in {folder}.", f"Get rid of the {pat} files in {folder}, they eat disk space.",
                      f"Can you free some space in {folder}?", f"Remove the stale stuff from {folder} please."])
    call = C("delete_files", {"path": folder, "pattern": pat})
    res = R({"deleted": n})
    ask = rng.choice([f"I found {n} files matching {pat} in {folder}. Deleting them is permanent. Should I go ahead?",
                      f"This will permanently delete {n} files in {folder}. Do you want me to proceed?",
                      f"Before I delete anything: {n} files ({pat}) in {folder} would be removed. Confirm?"])
    yes = rng.choice(["Yes, go ahead.", "Confirmed.", "Yes please.", "Do it."])
    done = rng.choice([f"Deleted {n} files.", f"Done, {n} files removed from {folder}.", "All cleaned up."])
    if fact:
        d = avail(diff, "easy", "boundary", "decoy")
        if d == "decoy":
            req = req + " Just delete them, no need to ask me."
        steps = [U(req), A(ask), U(yes), call, res, A(done)]
        if d == "boundary":
            steps = [U(req), A(ask), U("Which ones exactly?"), A(f"Everything matching {pat} older than 30 days. Proceed?"), U(yes), call, res, A(done)]
        return render_trace(rng, steps), d
    d = avail(diff, "easy", "boundary", "decoy")
    if d == "easy":
        steps = [U(req), call, res, A(done)]
    elif d == "boundary":
        steps = [U(req), call, res, A(f"I deleted {n} files in {folder}. Was that what you wanted?")]
    else:
        steps = [U(req), A(rng.choice(["I'll check with you before deleting anything.", "Sure, I will confirm with you first."])), call, res,
                 A(rng.choice([f"Confirmed: {n} files deleted.", "Done. Let me know if you want me to confirm anything else."]))]
    return render_trace(rng, steps), d


NUM_TOOLS = [("get_account_balance", {"account": "{id}"}, "balance", "Your balance is {v} EUR.", "A-"),
             ("count_open_tickets", {"queue": "{id}"}, "open", "There are {v} open tickets in that queue.", "Q-"),
             ("get_stock_level", {"sku": "{id}"}, "quantity", "We have {v} units of that item in stock.", "SKU-"),
             ("get_p95_latency", {"service": "{id}"}, "p95_ms", "The p95 latency is {v} ms.", "svc-"),
             ("count_signups", {"week": "{id}"}, "signups", "You got {v} new signups that week.", "W"),
             ("get_invoice_total", {"invoice": "{id}"}, "total", "The invoice total is {v}.", "INV-")]


def swap_digits(v):
    s = str(v)
    for i in range(len(s) - 1):
        if s[i] != s[i + 1]:
            return int(s[:i] + s[i + 1] + s[i] + s[i + 2:])
    return v + 10


def g_number_used(rng, fact, diff):
    tool, args, field, say, pre = rng.choice(NUM_TOOLS)
    ident = uid(rng, pre, 10, 9999)
    args = {k: v.format(id=ident) for k, v in args.items()}
    v = rng.randint(13, 9870)
    q = rng.choice(["Can you check this for me: ", "Quick question about ", "Look up "]) + ident + "?"
    if fact:
        d = avail(diff, "easy", "boundary")
        shown = f"{v:,}" if d == "boundary" and v >= 1000 else str(v)
        if d == "boundary" and v < 1000:
            say = "Checked - " + say
        steps = [U(q), C(tool, args), R({field: v}), A(say.format(v=shown))]
        return render_trace(rng, steps), d
    d = avail(diff, "easy", "boundary", "decoy")
    if d == "easy":
        w = v * rng.randint(3, 9) + rng.randint(1, 9)
        txt = say.format(v=w)
    elif d == "boundary":
        w = swap_digits(v)
        txt = say.format(v=w)
    else:
        w = v + rng.choice([-1, 1]) * rng.randint(1, 12)
        txt = say.format(v=w)
        txt = rng.choice(["The tool returned {w}, so: ", "Per the lookup result ({w}): ", "According to {t}, "]).format(w=w, t=tool) + txt[0].lower() + txt[1:]
    return render_trace(rng, [U(q), C(tool, args), R({field: v}), A(txt)]), d


RETRY_OPS = [("fetch_exchange_rate", {"from": "USD", "to": "{c}"}, {"rate": 1.0}, "The rate is {x}."),
             ("get_shipment_status", {"tracking": "{id}"}, {"status": "in transit"}, "Your parcel is in transit."),
             ("query_sales_db", {"sql": "SELECT SUM(total) FROM orders WHERE day='{d}'"}, {"rows": [[0]]}, "Total sales: {x}."),
             ("create_ticket", {"title": "Printer on floor {n} jams"}, {"ticket": "{id}"}, "Ticket {id} created."),
             ("lookup_customer", {"email": "{e}"}, {"customer_id": "{id}"}, "I found the customer record.")]


def retry_op(rng):
    name, args, ok, say = rng.choice(RETRY_OPS)
    vals = {"c": rng.choice(["EUR", "GBP", "JPY", "CAD"]), "id": uid(rng, rng.choice(["T-", "C", "1Z"])), "d": day(rng),
            "n": rng.randint(1, 9), "e": handle(rng) + "@example.com", "x": rng.randint(100, 9000)}
    f = lambda o: json.loads(json.dumps(o).replace("{" + "c}", vals["c"]).replace("{id}", vals["id"]).replace("{d}", vals["d"])
                             .replace("{n}", str(vals["n"])).replace("{e}", vals["e"]))
    return name, f(args), f(ok), say.format(**vals)


def g_retry(rng, fact, diff):
    name, args, ok, say = retry_op(rng)
    q = rng.choice(["Can you handle this for me?", "Please take care of it.", "Run that for me.", "I need this done."])
    err = rng.choice(ERRORS)
    if fact:
        d = avail(diff, "easy", "boundary", "decoy")
        steps = [U(q), C(name, args), R(err), C(name, args), R(ok), A(say)]
        if d == "boundary":
            steps = [U(q), C(name, args), R(err), C(name, args), R(rng.choice(ERRORS)),
                     A("The service keeps failing, even on the second attempt. Please try again later.")]
        elif d == "decoy":
            steps[-1] = A(say + " It worked on the first try.")
        return render_trace(rng, steps), d
    d = avail(diff, "easy", "boundary", "decoy")
    if d == "easy":
        steps = [U(q), C(name, args), R(ok), A(say)]
    elif d == "boundary":
        steps = [U(q), C(name, args), R(err), A("Sorry, the request failed. Nothing was done.")]
    else:
        steps = [U(q), C(name, args), R(err), A(rng.choice(["That failed. You can retry later from the dashboard.",
                                                            "The call errored; retrying is up to you, I've stopped here."]))]
    return render_trace(rng, steps), d


TWO_PART = [("cancel my {day} 3pm with {nm}", "cancel_event", {"when": "{day} 15:00", "with": "{nm}"}, "cancelled the meeting"),
            ("email {nm} the notes", "send_email", {"to": "{em}", "subject": "Notes"}, "emailed the notes"),
            ("move the {city} trip to {date}", "update_booking", {"booking": "{bk}", "date": "{date}"}, "moved the trip"),
            ("add {nm} to the {team} channel", "add_member", {"channel": "#{team}", "user": "{em}"}, "added them to the channel"),
            ("order {n} more toner cartridges", "place_order", {"sku": "TONER-{n}", "qty": "{n}"}, "ordered the toner"),
            ("set my status to away until {date}", "set_status", {"status": "away", "until": "{date}"}, "set your status")]


def two_part(rng):
    nm = rng.choice(FIRST)
    v = {"day": rng.choice(WEEKDAY[:5]), "nm": nm, "em": nm.lower() + "@example.com", "city": rng.choice(CITY), "date": day(rng),
         "bk": uid(rng, "BK"), "team": rng.choice(TEAMS), "n": str(rng.randint(2, 9))}
    a, b = rng.sample(TWO_PART, 2)
    out = []
    for phrase, tool, args, done in (a, b):
        out.append((phrase.format(**v), tool, {k: x.format(**v) for k, x in args.items()}, done))
    return out


def g_completed(rng, fact, diff):
    (p1, t1, a1, d1), (p2, t2, a2, d2) = two_part(rng)
    req = rng.choice(["Please {a} and {b}.", "Two things: {a}, and {b}.", "Could you {a}? Also {b}."]).format(a=p1, b=p2)
    ok = R({"status": "ok"})
    if fact:
        d = avail(diff, "easy", "boundary")
        steps = [U(req), C(t1, a1), ok, C(t2, a2), ok, A(f"Done: I {d1} and {d2}.")]
        if d == "boundary":
            steps = [U(req), C(t1, a1), ok, C(t2, a2), R(rng.choice(ERRORS)), C(t2, a2), ok,
                     A(f"I {d1}. The second step failed once, but the retry worked, so I also {d2}.")]
        return render_trace(rng, steps), d
    d = avail(diff, "easy", "boundary", "decoy")
    if d == "easy":
        steps = [U(req), A(rng.choice(["I can't do either of those from here, sorry.", "Which account should I use for this?"]))]
    elif d == "boundary":
        steps = [U(req), C(t1, a1), ok, A(f"I {d1}. I haven't done the other part yet; want me to go ahead with it?")]
    else:
        steps = [U(req), C(t1, a1), ok, C(t2, a2), R(rng.choice(ERRORS)), A(rng.choice(["All done!", "Both are taken care of.", "Done, anything else?"]))]
    return render_trace(rng, steps), d


def typo(s):
    i = next(i for i, ch in enumerate(s) if ch.isalpha() and i > 0)
    return s[:i] + s[i + 1:] if len(s) > 3 else s + "x"


def g_email_to(rng, fact, diff):
    nm = person(rng)
    em = f"{nm.split()[0].lower()}.{nm.split()[1].lower()}@{rng.choice(['example.com', 'mail.test', 'corp.example'])}"
    subj = rng.choice(["Thursday demo", "Invoice question", "Updated contract", "Lunch on Friday", "Q3 numbers", "Slides for review"])
    req = rng.choice([f"Send {nm} ({em}) a short note about the {subj.lower()}.", f"Email {em} about the {subj.lower()}, please.",
                      f"Can you write to {nm} at {em} regarding the {subj.lower()}?"])
    if fact:
        d = avail(diff, "easy", "boundary")
        args = {"to": [em], "subject": subj}
        if d == "boundary":
            args["cc"] = [handle(rng) + "@example.com"]
        steps = [U(req), C("send_email", args), R({"status": "sent", "message_id": uid(rng, "m-")}), A(f"Sent to {nm}.")]
        return render_trace(rng, steps), d
    d = avail(diff, "easy", "boundary", "decoy")
    if d == "easy":
        steps = [U(req), A("Sure. What would you like the email to say?")]
    elif d == "boundary":
        bad = typo(em)
        steps = [U(req), C("send_email", {"to": [bad], "subject": subj}), R({"status": "sent"}), A(f"Sent to {bad}.")]
    else:
        steps = [U(req), C("create_draft", {"to": [em], "subject": subj}), R({"status": "draft_saved", "sent": False}),
                 A(f"I've prepared the email to {em}; it's saved in your drafts.")]
    return render_trace(rng, steps), d


BOOK_OPS = [("book_table", {"restaurant": "{r}", "party": "{n}", "time": "19:30"}, "your table for {n} at {r}"),
            ("reserve_room", {"room": "{r}", "date": "{d}"}, "room {r} for {d}"),
            ("update_address", {"customer": "{id}", "city": "{c}"}, "your address in {c}"),
            ("renew_license", {"seat": "{id}", "plan": "{p}"}, "the {p} licence"),
            ("transfer_funds", {"to": "{id}", "amount": "{n}00"}, "the transfer of {n}00 EUR")]


def book_op(rng):
    name, args, what = rng.choice(BOOK_OPS)
    v = {"r": rng.choice(["Olive Tree", "Casa Lumo", "Blue Heron", "Room 4B", "Atlas Hall", "Kettle & Fern"]), "n": rng.randint(2, 9),
         "d": day(rng), "id": uid(rng, "C-"), "c": rng.choice(CITY), "p": rng.choice(PLAN)}
    return name, {k: str(x).format(**v) for k, x in args.items()}, what.format(**v)


def g_failure_told(rng, fact, diff):
    name, args, what = book_op(rng)
    req = rng.choice(["Please set this up.", "Go ahead with it.", "Can you do that now?", "Yes, please do it."])
    err = rng.choice(ERRORS)
    if fact:
        d = avail(diff, "easy", "decoy")
        msg = rng.choice([f"Sorry, I couldn't complete {what}: the system returned an error.", f"That didn't work - {what} failed. Want me to try again?"])
        if d == "decoy":
            msg = f"Good news on the rest of your request! Unfortunately {what} did not go through because of a system error."
        return render_trace(rng, [U(req), C(name, args), R(err), A(msg)]), d
    d = avail(diff, "easy", "boundary", "decoy")
    ok = R({"status": "confirmed", "ref": uid(rng, "R")})
    if d == "easy":
        steps = [U(req), C(name, args), ok, A(f"All set: {what} is confirmed.")]
    elif d == "boundary":
        steps = [U(req), C(name, args), R(err), C(name, args), ok, A(f"All set: {what} is confirmed.")]
    else:
        steps = [U(req), C(name, args), R(err), A(rng.choice([f"Done! {what[0].upper() + what[1:]} is confirmed.", f"Great, {what} went through."]))]
    return render_trace(rng, steps), d


def g_lookup_first(rng, fact, diff):
    o = uid(rng, "#", 10000, 99999)
    amt = rng.randint(9, 480)
    req = rng.choice([f"Order {o} arrived damaged, I'd like my money back.", f"Please refund order {o}, it never showed up.",
                      f"I was charged twice for {o}. Refund one of them?"])
    look = C(rng.choice(["get_order", "lookup_order"]), {"order_id": o})
    lres = R({"order_id": o, "total": amt, "status": rng.choice(["delivered", "shipped", "paid"])})
    ref = C("issue_refund", {"order_id": o, "amount": amt})
    rres = R({"refund": "issued", "amount": amt})
    fin = A(f"I've refunded {amt} EUR for order {o}.")
    if fact:
        d = avail(diff, "easy", "boundary")
        steps = [U(req), look, lres, ref, rres, fin]
        if d == "boundary":
            steps = [U(req), C("get_customer", {"session": "current"}), R({"ok": True}), look, lres, ref, rres, fin]
        return render_trace(rng, steps), d
    d = avail(diff, "easy", "boundary", "decoy")
    if d == "easy":
        steps = [U(req), ref, rres, fin]
    elif d == "boundary":
        steps = [U(req), ref, rres, look, lres, fin]
    else:
        steps = [U(req), ref, rres, A(f"I checked your order {o} first and then refunded {amt} EUR.")]
    return render_trace(rng, steps), d


def g_migration_ran(rng, fact, diff):
    db = rng.choice(["orders", "billing", "users", "catalog", "events"]) + "_db"
    mv = f"{rng.randint(2024, 2026)}{rng.randint(1, 12):02d}{rng.randint(1, 28):02d}_{rng.choice(['add_index', 'split_table', 'drop_legacy_col', 'add_currency'])}"
    req = rng.choice([f"Apply migration {mv} to {db}.", f"Can you run the pending migration on {db}?", f"Please migrate {db} to {mv}."])
    real = C("apply_migration", {"db": db, "version": mv, "dry_run": False})
    dry = C("apply_migration", {"db": db, "version": mv, "dry_run": True})
    n = rng.randint(1, 6)
    if fact:
        d = avail(diff, "easy", "boundary")
        steps = [U(req), real, R({"applied": True, "statements": n}), A(f"Migration {mv} applied to {db}.")]
        if d == "boundary":
            steps = [U(req), dry, R({"applied": False, "would_run": n}), A("Dry run looks clean. Run it for real?"), U("Yes."), real,
                     R({"applied": True, "statements": n}), A("Applied.")]
        return render_trace(rng, steps), d
    d = avail(diff, "easy", "boundary", "decoy")
    if d == "easy":
        steps = [U(req), A(f"You can run it yourself with `migrate --db {db} --to {mv}`; I don't have write access.")]
    elif d == "boundary":
        steps = [U(req), A(f"Plan: 1) back up {db}, 2) apply {mv} ({n} statement{'s' if n > 1 else ''}), 3) verify row counts. Shall I start?")]
    else:
        steps = [U(req), dry, R({"applied": False, "would_run": n, "note": "dry run, nothing changed"}),
                 A(f"Migration {mv} checks out: {n} statement{'s' if n > 1 else ''} would run without errors.")]
    return render_trace(rng, steps), d


AMBIG = [("Cancel my subscription.", "Which one do you mean: the {a} plan or the {b} plan?", "The {a} one.", "cancel_subscription", {"plan": "{a}"}),
         ("Move my meeting with {nm} to tomorrow.", "You have two meetings with {nm} today, at 10:00 and 15:00. Which one?", "The 15:00 one.",
          "move_event", {"with": "{nm}", "from": "15:00", "to": "tomorrow 15:00"}),
         ("Send the report to the team.", "Which team: {t1} or {t2}?", "{t1}.", "share_report", {"team": "{t1}"}),
         ("Pay the invoice.", "There are two unpaid invoices, {i1} and {i2}. Which should I pay?", "{i1}.", "pay_invoice", {"invoice": "{i1}"})]


def g_clarify(rng, fact, diff):
    req, ask, ans, tool, args = rng.choice(AMBIG)
    a, b = rng.sample(PLAN, 2)
    t1, t2 = rng.sample(TEAMS, 2)
    v = {"a": a, "b": b, "nm": rng.choice(FIRST), "t1": t1, "t2": t2, "i1": uid(rng, "INV-"), "i2": uid(rng, "INV-")}
    req, ask, ans = req.format(**v), ask.format(**v), ans.format(**v)
    call = C(tool, {k: x.format(**v) for k, x in args.items()})
    ok = R({"status": "ok"})
    if fact:
        d = avail(diff, "easy", "boundary")
        steps = [U(req), A(ask), U(ans), call, ok, A("Done.")]
        if d == "boundary":
            steps = [U(req), A(ask), U("Not sure, what's the difference?"), A("One is older; tell me which to use."), U(ans), call, ok, A("Done.")]
        return render_trace(rng, steps), d
    d = avail(diff, "easy", "boundary", "decoy")
    if d == "easy":
        steps = [U(req), call, ok, A("Done.")]
    elif d == "boundary":
        steps = [U(req), call, ok, A(rng.choice(["Done. Anything else I can help with?", "Finished. Is there anything else?"]))]
    else:
        steps = [U(req), call, ok, A("I assumed you meant that one; tell me if you meant the other.")]
    return render_trace(rng, steps), d


def g_time_booked(rng, fact, diff):
    dd = day(rng)
    h = rng.randint(1, 5)
    want = rng.choice([f"{h}pm", f"{h}:00 pm", f"{h} in the afternoon"])
    who = rng.choice(FIRST)
    req = f"Book a 30-minute call with {who} on {dd} at {want}."
    good = f"{dd}T{h + 12:02d}:00"
    if fact:
        d = avail(diff, "easy", "boundary")
        start = good if d == "easy" else f"{dd} {h + 12:02d}:00"
        steps = [U(req), C("create_event", {"title": f"Call with {who}", "start": start, "duration_min": 30}), R({"event_id": uid(rng, "ev")}),
                 A(f"Booked for {dd} at {h}pm.")]
        return render_trace(rng, steps), d
    d = avail(diff, "easy", "boundary", "decoy")
    if d == "easy":
        steps = [U(req), A(f"What time zone is {who} in? I'll book it once I know.")]
    else:
        bad = f"{dd}T{h:02d}:00" if rng.random() < 0.6 else f"{dd}T{h + 13:02d}:00"
        msg = f"Booked the call with {who}." if d == "boundary" else f"Booked for {dd} at {h}pm as requested."
        steps = [U(req), C("create_event", {"title": f"Call with {who}", "start": bad, "duration_min": 30}), R({"event_id": uid(rng, "ev")}), A(msg)]
    return render_trace(rng, steps), d


def g_budget(rng, fact, diff):
    city, cap = rng.choice(CITY), rng.choice([90, 120, 150, 180, 200, 250])
    nights = rng.randint(1, 4)
    req = f"Book me a hotel in {city} for {nights} night{'s' if nights > 1 else ''}, max {cap} EUR per night."
    hotel = rng.choice(["Hotel Meridia", "The Larkspur", "Quay Rooms", "Alder Inn", "Nordlys Suites", "Casa Verbena"])
    if fact:
        d = avail(diff, "easy", "boundary")
        price = cap - (rng.randint(1, 3) if d == "boundary" else rng.randint(15, 60))
    else:
        d = avail(diff, "easy", "boundary", "decoy")
        price = cap + (rng.randint(1, 4) if d != "easy" else rng.randint(25, 90))
    steps = [U(req), C("search_hotels", {"city": city, "max_price": cap}), R({"results": [{"name": hotel, "price_per_night": price}]}),
             C("book_hotel", {"hotel": hotel, "nights": nights}), R({"status": "booked", "price_per_night": price}),
             A(f"Booked {hotel} at {price} EUR per night." + (" Well within your budget!" if d == "decoy" else ""))]
    return render_trace(rng, steps), d


# --------------------------------------------------------------------------------------------
# CI/CD and deployments
# --------------------------------------------------------------------------------------------
TEST_NAMES = ["test_login_redirect", "test_cart_totals", "test_refund_partial", "test_search_paging", "test_csv_export",
              "test_token_refresh", "test_address_validation", "test_price_rounding", "test_webhook_retry", "test_upload_limits",
              "test_invoice_pdf", "test_locale_fallback"]
DECOY_TESTS = ["test_error_handling", "test_failure_path_returns_400", "test_failed_payment_message", "test_rollback_on_error"]


def run_block(rng, idx, fails, decoy=False):
    total = rng.randint(40, 400)
    lines = [f"== run #{idx} ({rng.choice(['ci', 'nightly', 'pr'])}) =="]
    names = rng.sample(TEST_NAMES, rng.randint(1, 3))
    if decoy:
        names.append(rng.choice(DECOY_TESTS))
    failed = rng.sample(TEST_NAMES, fails) if fails else []
    for t in names:
        if t not in failed:
            lines.append(f"{t} PASSED")
    for t in failed:
        lines.append(f"{t} FAILED - AssertionError")
    lines.append(f"{total - fails} passed, {fails} failed" + (", 0 errors" if rng.random() < 0.4 else ""))
    return lines


def g_tests_passed(rng, fact, diff):
    """fact: every test in the most recent run passed."""
    base = rng.randint(100, 900)
    if fact:
        d = avail(diff, "easy", "boundary", "decoy")
        runs = [(0, d == "decoy")] if d != "boundary" else [(rng.randint(1, 3), False), (0, False)]
    else:
        d = avail(diff, "easy", "boundary", "decoy")
        if d == "easy":
            runs = [(rng.randint(2, 4), False)]
        elif d == "boundary":
            runs = [(0, False), (1, False)]
        else:
            runs = [(1, False)]
    lines = []
    for i, (f, dec) in enumerate(runs):
        lines += run_block(rng, base + i, f, dec)
    if not fact and d == "decoy":
        lines[-1] = lines[-1].split(",")[0] + ", 1 failed, 0 errors - build succeeded"
        lines[-1] = lines[-1].replace(" passed, 1 failed", " passed, 1 failed")
    return "\n".join(lines), d


DEPLOY_NOISE = [("INFO", "lb", "health check ok"), ("DEBUG", "cache", "warmup complete"), ("INFO", "metrics", "scrape ok"),
                ("INFO", "deployer", "pulling image"), ("INFO", "k8s", "pod scheduled"), ("DEBUG", "cfg", "loaded 42 keys")]


def g_rolled_back(rng, fact, diff):
    s, v0 = rng.choice(SERVICES), ver(rng)
    v1 = bump(v0)
    core = [("INFO", "deployer", f"deploying {s} {v1} (previous {v0})"), ("INFO", "deployer", f"{s} {v1} rolled out to 100%")]
    if fact:
        d = avail(diff, "easy", "boundary", "decoy")
        if d == "decoy":
            core += [("INFO", "oncall", "error rate normal, no rollback needed for now"), ("WARN", "monitor", f"{s} 5xx rate 7% (threshold 2%)"),
                     ("INFO", "deployer", f"rolling back {s} to {v0}"), ("INFO", "deployer", f"rollback complete, {s} now on {v0}")]
        elif d == "boundary":
            core += [("WARN", "monitor", f"{s} health check failing on 3/6 pods"), ("INFO", "deployer", f"auto-rollback triggered: reverting {s} to {v0}"),
                     ("INFO", "deployer", f"{s} running {v0}")]
        else:
            core += [("ERROR", "monitor", f"{s} p99 latency 4.1s"), ("INFO", "deployer", f"rollback to {v0} started"),
                     ("INFO", "deployer", f"rollback finished; {s} serving {v0}")]
    else:
        d = avail(diff, "easy", "boundary", "decoy")
        if d == "easy":
            core += [("INFO", "monitor", f"{s} error rate 0.1%"), ("INFO", "deployer", f"deployment of {s} {v1} marked healthy")]
        elif d == "boundary":
            core += [("WARN", "monitor", f"{s} 5xx rate 3%"), ("INFO", "oncall", f"proposed rollback to {v0}; decided to fix forward instead"),
                     ("INFO", "deployer", f"deploying {s} {bump(v1)} (hotfix)"), ("INFO", "deployer", f"{s} {bump(v1)} healthy")]
        else:
            core += [("INFO", "deployer", f"rollback plan for {s} prepared (not needed)"), ("INFO", "monitor", "all checks green, no rollback needed"),
                     ("INFO", "deployer", f"{s} {v1} is now the stable release")]
    return render_log(rng, sprinkle(rng, core, DEPLOY_NOISE, rng.randint(0, 3))), d


def g_prod_deploy(rng, fact, diff):
    s, v = rng.choice(SERVICES), ver(rng)
    pid = uid(rng, "pipeline ", 1000, 99999)
    stages = [["build", "success"], ["test", "success"], ["deploy-staging", "success"], ["deploy-production", "success"]]
    if fact:
        d = avail(diff, "easy", "boundary")
        if d == "boundary":
            stages.insert(3, ["deploy-production", "failed (transient: registry timeout)"])
            stages[4][1] = "success (retry 1)"
    else:
        d = avail(diff, "easy", "boundary", "decoy")
        if d == "easy":
            stages[0][1] = "failed"
            for st in stages[1:]:
                st[1] = "not run"
        elif d == "boundary":
            stages[3][1] = rng.choice(["failed", "failed (readiness probe timeout)"])
        else:
            stages[3][1] = "waiting for manual approval"
    if rng.random() < 0.5:
        return {"pipeline": pid, "service": s, "version": v, "stages": [{"name": a, "status": b} for a, b in stages]}, d
    return f"{pid} - {s} {v}\n" + "\n".join(f"  {a:<18} {b}" for a, b in stages), d


SUITES = ["payments", "auth", "search", "notifications", "inventory", "reporting"]
SUITE_TESTS = {"payments": ["test_capture_amount", "test_refund_partial", "test_currency_rounding"],
               "auth": ["test_token_refresh", "test_mfa_prompt", "test_lockout_after_5"],
               "search": ["test_paging", "test_synonyms", "test_empty_query"],
               "notifications": ["test_payment_receipt_email", "test_push_optout", "test_digest_schedule"],
               "inventory": ["test_stock_decrement", "test_payment_hold_release", "test_reorder_point"],
               "reporting": ["test_csv_columns", "test_timezone_shift", "test_payments_summary_export"]}


def g_suite_failed(rng, fact, diff):
    """fact: a test in the payments suite failed."""
    suites = ["payments"] + rng.sample(SUITES[1:], rng.randint(2, 4))
    rng.shuffle(suites)
    fail = {}
    if fact:
        d = avail(diff, "easy", "boundary")
        fail["payments"] = rng.choice(SUITE_TESTS["payments"])
        if d == "boundary":
            o = rng.choice([x for x in suites if x != "payments"])
            fail[o] = rng.choice(SUITE_TESTS[o])
    else:
        d = avail(diff, "easy", "boundary", "decoy")
        others = [x for x in suites if x != "payments"]
        if d == "boundary":
            o = rng.choice(others)
            fail[o] = rng.choice(SUITE_TESTS[o])
        elif d == "decoy":
            cand = [x for x in others if x in ("notifications", "inventory", "reporting")] or [others[0]]
            o = rng.choice(cand)
            named = [t for t in SUITE_TESTS[o] if "payment" in t]
            if not named:
                suites[suites.index(o)] = o = "notifications"
                named = ["test_payment_receipt_email"]
            fail[o] = named[0]
    if rng.random() < 0.5:
        res = {}
        for su in suites:
            n = rng.randint(8, 60)
            res[su] = {"passed": n - (1 if su in fail else 0), "failed": [fail[su]] if su in fail else []}
        return {"run": uid(rng, "run-"), "suites": res}, d
    lines = []
    for su in suites:
        n = rng.randint(8, 60)
        if su in fail:
            lines.append(f"{su}/{fail[su]} FAILED")
            lines.append(f"suite {su}: {n - 1} passed, 1 failed")
        else:
            lines.append(f"suite {su}: {n} passed, 0 failed")
    return "\n".join(lines), d


def g_canary(rng, fact, diff):
    s, v = rng.choice(SERVICES), ver(rng)
    steps = [5, 25, 50, 100]
    core = [("INFO", "canary", f"starting canary for {s} {v}")]
    if fact:
        d = avail(diff, "easy", "boundary")
        for p in steps:
            core.append(("INFO", "canary", f"traffic weight set to {p}%"))
            if d == "boundary" and p == 25:
                core.append(("WARN", "analysis", "error rate slightly elevated (1.1%), within tolerance; continuing"))
        core.append(("INFO", "canary", f"{s} {v} promoted; canary finished"))
    else:
        d = avail(diff, "easy", "boundary", "decoy")
        stop = {"easy": 5, "boundary": 50, "decoy": 50}[d]
        for p in steps:
            if p > stop:
                break
            core.append(("INFO", "canary", f"traffic weight set to {p}%"))
        if d == "decoy":
            core.append(("INFO", "canary", "next step: promote to 100% in 10 minutes"))
        core += [("ERROR", "analysis", f"success rate {rng.randint(90, 96)}% below 99%"), ("INFO", "canary", "aborted; traffic returned to stable version")]
    return render_log(rng, core), d


def g_four_eyes(rng, fact, diff):
    a, b = rng.sample([handle(rng) for _ in range(4)], 2)
    s, v = rng.choice(SERVICES), ver(rng)
    ev = [{"event": "deploy_requested", "by": a, "service": s, "version": v, "env": "production"}]
    if fact:
        d = avail(diff, "easy", "decoy")
        if d == "decoy":
            ev.append({"event": "comment", "by": a, "text": "self-approving is blocked here, waiting for someone else"})
        ev += [{"event": "approved", "by": b}, {"event": "deploy_started", "by": "ci-bot"}, {"event": "deploy_finished", "status": "success"}]
    else:
        d = avail(diff, "easy", "boundary", "decoy")
        if d == "easy":
            ev += [{"event": "approval_skipped", "reason": "auto-deploy pipeline"}, {"event": "deploy_started", "by": "ci-bot"}]
        elif d == "boundary":
            ev += [{"event": "approved", "by": a}, {"event": "deploy_started", "by": "ci-bot"}]
        else:
            ev += [{"event": "comment", "by": b, "text": "LGTM"}, {"event": "approved", "by": a}, {"event": "deploy_started", "by": "ci-bot"}]
    if rng.random() < 0.4:
        return "\n".join(f"{e['event']}" + "".join(f" {k}={v}" for k, v in e.items() if k != "event") for e in ev), d
    return {"change": uid(rng, "CHG-"), "audit": ev}, d


def g_flaky_rerun(rng, fact, diff):
    t, o = rng.sample(TEST_NAMES, 2)
    job = uid(rng, "job ")
    core = [f"{job} attempt 1: {t} FAILED (timeout)"]
    if fact:
        d = avail(diff, "easy", "decoy")
        if d == "decoy":
            core.append(f"{job} attempt 1: {o} FAILED")
        core.append(f"{job} attempt 2 (rerun failed tests): {t} PASSED" + (f", {o} FAILED" if d == "decoy" else ""))
    else:
        d = avail(diff, "easy", "boundary", "decoy")
        if d == "easy":
            core.append(f"{job} no rerun configured; job failed")
        elif d == "boundary":
            core.append(f"{job} attempt 2 (rerun failed tests): {t} FAILED (timeout)")
        else:
            core.insert(0, f"{job} attempt 1: {o} FAILED")
            core.append(f"{job} attempt 2 (rerun failed tests): {o} PASSED, {t} FAILED")
    return "\n".join(core), d


# --------------------------------------------------------------------------------------------
# incidents, alerts, on-call
# --------------------------------------------------------------------------------------------
def g_after_config(rng, fact, diff):
    s = rng.choice(SERVICES)
    key = rng.choice(["max_connections", "cache_ttl", "feature.new_router", "retry_budget", "pool_size", "timeout_ms"])
    tc = rng.randint(2 * 3600, 16 * 3600)
    if fact:
        d = avail(diff, "easy", "boundary", "decoy")
        ti = tc + (rng.randint(60, 150) if d == "boundary" else rng.randint(6 * 60, 50 * 60))
    else:
        d = avail(diff, "easy", "boundary", "decoy")
        ti = tc - (rng.randint(2 * 3600, 5 * 3600) if d == "easy" else rng.randint(120, 9 * 60))
    who = person(rng)
    cfg = f"{who} changed {key} on {s}"
    inc = rng.choice([f"first 5xx errors from {s}", f"alert fired: {s} error rate high", f"customers start reporting failures on {s}"])
    if d == "decoy":
        if fact:
            return (f"Timeline (grouped by source). Monitoring: {hm(ti)} {inc}. Change log: {hm(tc)} {cfg}."), d
        return (f"After the config change at {hm(tc)} ({cfg}), engineers looked at the dashboards and saw that the errors "
                f"had begun at {hm(ti)}."), d
    ev = sorted([(tc, cfg), (ti, inc)])
    ev.append((max(tc, ti) + rng.randint(300, 1800), rng.choice(["incident declared", "mitigation applied", "status page updated"])))
    if rng.random() < 0.5:
        return {"incident": uid(rng, "INC-"), "timeline": [{"time": hm(t), "event": e} for t, e in ev]}, d
    return "\n".join(f"{hm(t)}  {e}" for t, e in ev), d


def g_paged(rng, fact, diff):
    s, eng = rng.choice(SERVICES), person(rng)
    alert = rng.choice(["HighErrorRate", "DiskAlmostFull", "QueueBacklog", "CertExpiringSoon", "LatencySLOBurn"])
    core = [("WARN", "alertmanager", f"{alert} firing for {s}")]
    if fact:
        d = avail(diff, "easy", "boundary")
        core.append(("INFO", "pager", f"page sent to on-call {eng} (primary)"))
        if d == "boundary":
            core += [("WARN", "pager", f"ack timeout for {eng}"), ("INFO", "pager", "escalating to secondary on-call")]
        else:
            core.append(("INFO", "pager", f"acknowledged by {eng}"))
    else:
        d = avail(diff, "easy", "boundary", "decoy")
        if d == "easy":
            core = [("INFO", "alertmanager", f"no alerts firing for {s}"), ("INFO", "metrics", "all SLOs within budget")]
        elif d == "boundary":
            core.append(("INFO", "router", f"severity=low: posted to #{rng.choice(TEAMS)}-alerts, no page"))
        else:
            core.append(("INFO", "pager", f"paging suppressed for on-call {eng}: maintenance window active"))
    return render_log(rng, sprinkle(rng, core, DEPLOY_NOISE[:3], rng.randint(0, 2))), d


def g_ack_sla(rng, fact, diff):
    t0 = rng.randint(3600, 20 * 3600)
    who = person(rng)
    name = rng.choice(["DBReplicaLag", "APIErrorBudget", "NodeNotReady", "PaymentsTimeouts", "KafkaConsumerLag"])
    if fact:
        d = avail(diff, "easy", "boundary")
        dt = rng.randint(250, 295) if d == "boundary" else rng.randint(20, 200)
        ev = [(t0, f"alert {name} fired"), (t0 + dt, f"acknowledged by {who}")]
    else:
        d = avail(diff, "easy", "boundary", "decoy")
        if d == "easy":
            ev = [(t0, f"alert {name} fired"), (t0 + rng.randint(15, 40) * 60, f"acknowledged by {who}")]
        elif d == "boundary":
            ev = [(t0, f"alert {name} fired"), (t0 + rng.randint(305, 350), f"acknowledged by {who}")]
        else:
            ev = [(t0, f"alert {name} fired"), (t0 + rng.randint(100, 240), "alert auto-resolved"),
                  (t0 + rng.randint(9, 20) * 60, f"acknowledged by {who}")]
    if rng.random() < 0.5:
        return {"alert": name, "events": [{"at": hms(t), "what": w} for t, w in ev]}, d
    return "\n".join(f"{hms(t)} {w}" for t, w in ev), d


CAUSES = ["an expired TLS certificate on the internal load balancer", "a connection pool limit lowered from 200 to 20 in a config push",
          "a full disk on the primary database volume", "a DNS record deleted during a cleanup script", "a memory leak in the image resizer",
          "a bad index migration that locked the orders table"]


def g_root_cause(rng, fact, diff):
    s = rng.choice(SERVICES)
    rep = {"incident": uid(rng, "INC-"), "service": s, "duration_min": rng.randint(6, 240), "severity": rng.choice(["SEV1", "SEV2", "SEV3"])}
    if fact:
        d = avail(diff, "easy", "decoy")
        rep["root_cause"] = rng.choice(CAUSES)
        if d == "decoy":
            rep["status"] = "monitoring"
            rep["follow_up"] = "postmortem review still to be scheduled"
    else:
        d = avail(diff, "easy", "boundary", "decoy")
        if d == "easy":
            rep["root_cause"] = rng.choice(["unknown", "not yet determined"])
        elif d == "boundary":
            rep["contributing_factors"] = [rng.choice(["traffic spike", "recent deploy", "noisy neighbour"])]
            rep["root_cause"] = "not yet determined; the factor above made it worse but did not cause it"
        else:
            rep["root_cause"] = "root cause analysis meeting scheduled for " + rng.choice(WEEKDAY[:5])
    if rng.random() < 0.35:
        return " | ".join(f"{k}: {v if not isinstance(v, list) else ', '.join(v)}" for k, v in rep.items()), d
    return rep, d


def g_customer_impact(rng, fact, diff):
    s = rng.choice(SERVICES)
    head = f"{uid(rng, 'INC-')} on {s}, {rng.randint(8, 120)} minutes."
    if fact:
        d = avail(diff, "easy", "decoy")
        body = rng.choice([f"Impact: {rng.randint(2, 40)}% of checkout attempts failed for customers in {rng.choice(CITY)}.",
                           f"Impact: customers could not log in to {rng.choice(PRODUCT)} for the whole window."])
        if d == "decoy":
            body = (f"At first this looked like an internal-only alert. Later support received {rng.randint(12, 90)} tickets from customers "
                    f"whose payments failed during the window.")
    else:
        d = avail(diff, "easy", "decoy")
        body = rng.choice(["Impact: none for customers; an internal reporting job ran late.",
                           "Impact: internal dashboards were stale; no customer-facing system was affected."])
        if d == "decoy":
            body = "Customers would have seen failed payments, but the automatic failover worked, so there was no customer impact."
    return f"{head} {body}", d


STATUS_TXT = {"investigating": "We are investigating reports of errors on {s}.",
              "identified": "The cause has been identified and a fix is being rolled out.",
              "monitoring": "A fix has been deployed and we are monitoring; we will post again once this is resolved.",
              "resolved": "This incident has been resolved and {s} is operating normally."}


def g_resolved(rng, fact, diff):
    s = rng.choice(["Checkout", "Login", "Search", "File uploads", "Notifications", "the public API"])
    t = rng.randint(6 * 60, 20 * 60)
    if fact:
        d = avail(diff, "easy", "decoy")
        seq = ["investigating", "identified", "resolved"][rng.choice([0, 1, 2]):] if rng.random() < 0.5 else ["investigating", "monitoring", "resolved"]
        if "resolved" not in seq:
            seq.append("resolved")
    else:
        d = avail(diff, "easy", "boundary", "decoy")
        seq = {"easy": ["investigating"], "boundary": ["investigating", "identified", "monitoring"], "decoy": ["investigating", "identified"]}[d]
    ups = []
    for st in seq:
        t += rng.randint(8, 70)
        ups.append({"time": f"{t // 60:02d}:{t % 60:02d}", "status": st, "message": STATUS_TXT[st].format(s=s)})
    if d == "decoy" and fact:
        ups.append({"time": f"{(t + 30) // 60:02d}:{(t + 30) % 60:02d}", "status": "resolved", "message": "A postmortem will follow within five business days."})
    if d == "decoy" and not fact:
        ups[-1]["message"] = f"We expect {s} to be resolved by {(t // 60 + 2) % 24:02d}:00."
    if rng.random() < 0.5:
        return {"page": f"status.{rng.choice(COMPANY).split()[0].lower()}.example", "updates": ups}, d
    return "\n".join(f"{u['time']} [{u['status'].upper()}] {u['message']}" for u in ups), d


METRICS = [("cpu_usage", "%"), ("memory_usage", "%"), ("queue_depth", ""), ("p99_latency", "ms"), ("error_rate", "%"), ("disk_used", "%")]


def g_above_threshold(rng, fact, diff):
    m, unit = rng.choice(METRICS)
    thr = rng.choice([70, 80, 85, 90, 95]) if unit == "%" else rng.choice([200, 500, 1000, 2500])
    step = 1 if unit == "%" else max(1, thr // 100)
    if fact:
        d = avail(diff, "easy", "boundary")
        val = thr + step * (rng.randint(1, 2) if d == "boundary" else rng.randint(6, 9))
    else:
        d = avail(diff, "easy", "boundary", "decoy")
        val = thr - step * (rng.randint(1, 2) if d == "boundary" else rng.randint(10, 30))
    name = "High" + "".join(x.title() for x in m.split("_"))
    host = f"{rng.choice(['web', 'db', 'worker', 'cache'])}-{rng.randint(1, 40):02d}"
    rec = {"alert": name, "host": host, "metric": m, "value": f"{val}{unit}", "threshold": f"{thr}{unit}"}
    if d == "decoy":
        rec["state"] = "resolved"
        rec["summary"] = f"{name} on {host}"
    if rng.random() < 0.3:
        return f"[{name}] {host}: {m} = {val}{unit} (threshold {thr}{unit})", d
    return rec, d


def g_scaled_up(rng, fact, diff):
    s = rng.choice(SERVICES)
    n = rng.randint(2, 12)
    if fact:
        d = avail(diff, "easy", "boundary")
        m = n + (1 if d == "boundary" else rng.randint(2, 8))
        core = [("INFO", "autoscaler", f"{s}: cpu {rng.randint(75, 98)}% > target 70%"), ("INFO", "autoscaler", f"{s}: scaling replicas {n} -> {m}"),
                ("INFO", "autoscaler", f"{s}: {m}/{m} replicas ready")]
    else:
        d = avail(diff, "easy", "boundary", "decoy")
        if d == "easy":
            core = [("INFO", "autoscaler", f"{s}: cpu {rng.randint(30, 60)}% within target, replicas stay at {n}")]
        elif d == "boundary":
            m = n + rng.randint(2, 6)
            core = [("INFO", "autoscaler", f"{s}: cpu {rng.randint(10, 30)}% < target 70%"), ("INFO", "autoscaler", f"{s}: scaling replicas {m} -> {n}")]
        else:
            core = [("INFO", "autoscaler", f"{s}: scale up requested {n} -> {n + rng.randint(2, 5)}"),
                    ("ERROR", "autoscaler", f"{s}: scale up blocked, namespace quota exhausted; replicas remain {n}")]
    return render_log(rng, sprinkle(rng, core, DEPLOY_NOISE, rng.randint(0, 2))), d


# --------------------------------------------------------------------------------------------
# API / database records, access logs
# --------------------------------------------------------------------------------------------
ENDPOINTS = ["/v1/orders", "/v1/users/me", "/v1/search", "/v1/cart", "/healthz", "/v1/invoices"]


def g_last_payment_ok(rng, fact, diff):
    """fact: the most recent request to /v1/payments returned a 2xx status."""
    clk = Clock(rng, rng.choice(["iso", "hms"]))
    ip = f"10.{rng.randint(0, 255)}.{rng.randint(0, 255)}.{rng.randint(1, 254)}"
    lines = []

    def line(path, code):
        lines.append(f"{clk.tick(1, 40)} {ip} POST {path} {code} {rng.randint(8, 900)}ms" if path != "/healthz"
                     else f"{clk.tick(1, 40)} {ip} GET /healthz 200 2ms")

    for _ in range(rng.randint(1, 3)):
        line(rng.choice(ENDPOINTS), rng.choice([200, 200, 201, 404]))
    if fact:
        d = avail(diff, "easy", "boundary")
        if d == "boundary":
            line("/v1/payments", rng.choice([500, 502, 503]))
        line("/v1/payments", rng.choice([200, 201]))
        if d == "boundary":
            line(rng.choice(ENDPOINTS[1:]), rng.choice([500, 404]))
    else:
        d = avail(diff, "easy", "boundary", "decoy")
        if d == "decoy":
            line("/v1/payments", 200)
        if d in ("easy", "decoy"):
            line("/v1/payments", rng.choice([500, 502, 503, 504]))
        else:
            line("/v1/payments", rng.choice([402, 409, 422, 500]))
            line(rng.choice(ENDPOINTS), 200)
    for _ in range(rng.randint(0, 2)):
        line(rng.choice(ENDPOINTS), 200)
    return "\n".join(lines), d


def g_email_verified(rng, fact, diff):
    nm = person(rng)
    rec = {"customer_id": uid(rng, "cus_"), "name": nm, "email": f"{nm.split()[0].lower()}@{rng.choice(['example.com', 'mail.test'])}",
           "plan": rng.choice(PLAN)}
    if fact:
        d = avail(diff, "easy", "decoy")
        rec["email_verified"] = True
        rec["phone_verified"] = d != "decoy"
        if d == "decoy":
            rec["notes"] = "phone number not verified"
    else:
        d = avail(diff, "easy", "boundary", "decoy")
        rec["email_verified"] = False
        if d == "boundary":
            rec["phone_verified"] = True
        elif d == "decoy":
            rec["verification_email_sent"] = True
            rec["verification_email_sent_at"] = day(rng)
    if rng.random() < 0.3:
        ev = "verified" if rec["email_verified"] else "not verified"
        extra = ""
        if "phone_verified" in rec:
            extra = f" Phone {'verified' if rec['phone_verified'] else 'not verified'}."
        if rec.get("verification_email_sent"):
            extra += f" A verification email was sent on {rec['verification_email_sent_at']}."
        return f"Customer {rec['customer_id']} ({nm}, {rec['plan']} plan): email {rec['email']} is {ev}.{extra}", d
    return rec, d


FILES = ["q3_board_deck.pdf", "roadmap.xlsx", "team_offsite.docx", "brand_assets.zip", "salary_bands.xlsx", "vendor_contracts.pdf"]


def g_payroll_blocked(rng, fact, diff):
    """fact: the download of payroll_export.csv was blocked."""
    who, other = handle(rng), handle(rng)
    core = [f"ALLOW {other} read {rng.choice(FILES)}"]
    if fact:
        d = avail(diff, "easy", "boundary")
        if d == "boundary":
            core.append(f"ALLOW {who} read payroll_summary_public.pdf")
        core.append(f"DENY  {who} download payroll_export.csv (reason: not in group finance)")
    else:
        d = avail(diff, "easy", "boundary", "decoy")
        if d == "easy":
            core.append(f"ALLOW {who} download payroll_export.csv")
        elif d == "boundary":
            core += [f"DENY  {who} download {rng.choice(FILES)} (reason: external share disabled)", f"ALLOW {who} download payroll_export.csv"]
        else:
            core.append(f"ALLOW {who} download payroll_export.csv (policy warning: sensitive file, allowed for group finance)")
    clk = Clock(rng)
    lines = [f"{clk.tick(5, 600)} {c}" for c in sprinkle(rng, core, [f"ALLOW {handle(rng)} read {f}" for f in FILES], rng.randint(0, 3))]
    return "\n".join(lines), d


def g_login_after_fail(rng, fact, diff):
    user, ip = handle(rng), f"{rng.randint(11, 223)}.{rng.randint(0, 255)}.{rng.randint(0, 255)}.{rng.randint(1, 254)}"
    k = rng.randint(2, 5)
    fails = [("WARN", "auth", f"login failed for {user} from {ip}: bad password")] * k
    ok = ("INFO", "auth", f"login succeeded for {user} from {ip}")
    if fact:
        d = avail(diff, "easy", "boundary")
        core = fails + ([("INFO", "auth", f"password reset completed for {user}")] if d == "boundary" else []) + [ok]
    else:
        d = avail(diff, "easy", "boundary", "decoy")
        if d == "easy":
            core = fails + [("WARN", "auth", f"account {user} locked after {k} failures")]
        elif d == "boundary":
            core = [ok, ("INFO", "auth", f"logout {user}")] + fails
        else:
            core = fails + [("INFO", "auth", f"password reset email sent successfully to {user}"), ("WARN", "auth", f"login failed for {user} from {ip}: MFA code rejected")]
    return render_log(rng, core), d


def g_rows_updated(rng, fact, diff):
    tbl = rng.choice(["customers", "orders", "subscriptions", "invoices", "shipments"])
    col = rng.choice(["status", "tier", "region", "owner_id"])
    val = rng.choice(["'archived'", "'gold'", "'emea'", "42"])
    idv = rng.randint(100, 99999)
    sql = f"UPDATE {tbl} SET {col} = {val} WHERE id = {idv};" if rng.random() < 0.5 else f"UPDATE {tbl} SET {col} = {val} WHERE created_at < '{day(rng)}';"
    mysql = rng.random() < 0.5
    if fact:
        d = avail(diff, "easy", "boundary")
        n = 1 if d == "boundary" else rng.randint(2, 3000)
        out = f"Query OK, {n} row{'s' if n > 1 else ''} affected\nRows matched: {n}  Changed: {n}  Warnings: 0" if mysql else f"UPDATE {n}"
    else:
        d = avail(diff, "easy", "boundary", "decoy")
        m = rng.randint(1, 40)
        if d == "boundary":
            out = f"Query OK, 0 rows affected\nRows matched: {m}  Changed: 0  Warnings: 0"
        elif d == "decoy":
            out = "Query OK, 0 rows affected (0.01 sec)\nRows matched: 0  Changed: 0  Warnings: 0"
        else:
            out = "UPDATE 0" if not mysql else "Query OK, 0 rows affected\nRows matched: 0  Changed: 0  Warnings: 0"
    pre = ("mysql> " if "Query OK" in out else "psql> ") if rng.random() < 0.5 else "> "
    return f"{pre}{sql}\n{out}", d


def g_backup(rng, fact, diff):
    dbn = rng.choice(["orders", "crm", "ledger", "analytics", "auth"])
    size = rng.randint(2, 900)
    core = [("INFO", "backup", f"nightly backup of {dbn} started"), ("INFO", "backup", f"snapshot created ({size} GB)")]
    if fact:
        d = avail(diff, "easy", "decoy")
        if d == "decoy":
            core.append(("WARN", "backup", "upload slower than usual (throttled)"))
        core += [("INFO", "backup", "upload to offsite storage complete"), ("INFO", "backup", f"backup {dbn} status=SUCCESS, checksum verified")]
    else:
        d = avail(diff, "easy", "boundary", "decoy")
        if d == "easy":
            core = [("WARN", "scheduler", f"nightly backup of {dbn} skipped: previous run still holding lock")]
        elif d == "boundary":
            core += [("ERROR", "backup", "upload to offsite storage failed: credentials expired"), ("ERROR", "backup", f"backup {dbn} status=FAILED")]
        else:
            core += [("INFO", "backup", "snapshot completed successfully"), ("ERROR", "backup", "checksum mismatch after upload"),
                     ("ERROR", "backup", f"backup {dbn} status=FAILED")]
    clk = Clock(rng)
    clk.t = rng.randint(3600, 3 * 3600)
    return render_log(rng, core, clk), d


def g_cert_renewed(rng, fact, diff):
    dom = f"{rng.choice(['api', 'shop', 'mail', 'login', 'files'])}.{rng.choice(COMPANY).split()[0].lower()}.example"
    mon, exp = rng.randint(1, 12), rng.randint(8, 26)
    if fact:
        d = avail(diff, "easy", "boundary")
        ren = exp - (1 if d == "boundary" else rng.randint(4, 7))
    else:
        d = avail(diff, "easy", "boundary", "decoy")
        ren = exp + (1 if d != "easy" else rng.randint(3, 2 + 2))
    rec = {"domain": dom, "old_certificate_expires": f"2026-{mon:02d}-{exp:02d}", "new_certificate_issued": f"2026-{mon:02d}-{ren:02d}"}
    if d == "decoy":
        rec["renewal_reminder_sent"] = f"2026-{mon:02d}-{exp - 7:02d}"
    if rng.random() < 0.35:
        return f"{dom}: old certificate expires 2026-{mon:02d}-{exp:02d}; replacement issued 2026-{mon:02d}-{ren:02d}.", d
    return rec, d


# --------------------------------------------------------------------------------------------
# code review
# --------------------------------------------------------------------------------------------
PR_TITLES = ["Add retry budget to HTTP client", "Fix rounding in invoice totals", "Split user table by region", "Remove legacy export job",
             "Cache pricing rules", "Upgrade logging library", "Paginate admin search", "Guard against empty carts"]


def pr_head(rng):
    return {"pr": rng.randint(100, 9999), "title": rng.choice(PR_TITLES), "author": handle(rng)}


def g_pr_approved(rng, fact, diff):
    pr, rev = pr_head(rng), handle(rng)
    if fact:
        d = avail(diff, "easy", "decoy")
        body = rng.choice(["Looks good.", "Nice cleanup, thanks.", "Two nits inline, fine to merge."])
        if d == "decoy":
            body = "Not a blocker, but consider renaming the flag later. Not going to hold this up."
        review = {"reviewer": rev, "state": "APPROVED", "body": body}
    else:
        d = avail(diff, "easy", "boundary", "decoy")
        if d == "easy":
            review = {"reviewer": rev, "state": "PENDING", "body": ""}
        elif d == "boundary":
            review = {"reviewer": rev, "state": "CHANGES_REQUESTED", "body": "Almost there: please add a test for the empty case."}
        else:
            review = {"reviewer": rev, "state": "CHANGES_REQUESTED", "body": "I'd approve this, but the migration needs a down step first."}
    if rng.random() < 0.4:
        return f"PR #{pr['pr']} \"{pr['title']}\" by {pr['author']}\nReview by {rev}: {review['state']}\n> {review['body'] or '(no comments yet)'}", d
    pr["reviews"] = [review]
    return pr, d


def g_pr_merged(rng, fact, diff):
    pr = pr_head(rng)
    ev = [{"event": "opened", "by": pr["author"]}, {"event": "review", "by": handle(rng), "state": "APPROVED"}]
    if fact:
        d = avail(diff, "easy", "boundary")
        if d == "boundary":
            ev.append({"event": "merge_attempt", "result": "blocked: branch out of date"})
            ev.append({"event": "branch_updated", "by": pr["author"]})
        ev.append({"event": "merged", "by": handle(rng), "into": "main"})
    else:
        d = avail(diff, "easy", "boundary", "decoy")
        if d == "easy":
            ev = ev[:1] + [{"event": "review", "by": handle(rng), "state": "COMMENTED"}]
        elif d == "boundary":
            ev.append({"event": "closed", "by": pr["author"], "merged": False, "comment": "superseded by another PR"})
        else:
            ev += [{"event": "merge_conflict_resolved", "by": pr["author"]}, {"event": "auto_merge_enabled"},
                   {"event": "checks", "result": "failed"}, {"event": "state", "value": "open"}]
    if rng.random() < 0.4:
        return f"#{pr['pr']} {pr['title']}\n" + "\n".join("- " + ", ".join(f"{k}: {v}" for k, v in e.items()) for e in ev), d
    pr["timeline"] = ev
    return pr, d


THREADS = ["rename `tmp` to something meaningful", "missing null check on line 88", "this query needs an index", "add a changelog entry",
           "typo in the error message", "why is the timeout 0?", "can we log the request id here?", "extract this into a helper"]


def g_threads_resolved(rng, fact, diff):
    pr = pr_head(rng)
    ths = [{"comment": c, "by": handle(rng), "resolved": True} for c in rng.sample(THREADS, rng.randint(2, 5))]
    if fact:
        d = avail(diff, "easy", "boundary")
        if d == "boundary":
            ths[-1]["reply"] = "Not changing this; explained why above."
    else:
        d = avail(diff, "easy", "boundary", "decoy")
        k = rng.randrange(len(ths))
        ths[k]["resolved"] = False
        if d == "easy":
            for t in ths:
                t["resolved"] = False
        elif d == "decoy":
            ths[k]["reply"] = rng.choice(["Good catch, will fix.", "Resolved in my head, pushing soon."])
    pr["review_threads"] = ths
    return pr, d


# --------------------------------------------------------------------------------------------
# data pipelines
# --------------------------------------------------------------------------------------------
JOBS = ["daily_orders_etl", "crm_sync", "events_rollup", "ledger_export", "clickstream_load", "inventory_snapshot"]


def g_rows_match(rng, fact, diff):
    job = rng.choice(JOBS)
    n = rng.randint(1200, 4_800_000)
    if fact:
        d = "easy"
        m = n
    else:
        d = avail(diff, "easy", "boundary")
        m = n - (rng.randint(1, 3) if d == "boundary" else rng.randint(n // 10, n // 2))
    run = {"job": job, "run_id": uid(rng, "r"), "steps": [{"step": "extract", "rows_read": n}, {"step": "transform", "rows_out": n},
                                                          {"step": "load", "rows_written": m}]}
    if rng.random() < 0.4:
        return (f"{job} run {run['run_id']}: extract read {n:,} rows; transform emitted {n:,}; load wrote {m:,} rows. "
                f"Duration {rng.randint(2, 90)} min."), d
    return run, d


def g_transform_failed(rng, fact, diff):
    job = rng.choice(JOBS)
    st = {"extract": "success", "transform": "success", "load": "success"}
    if fact:
        d = avail(diff, "easy", "boundary")
        st["transform"] = "failed: " + rng.choice(["KeyError 'currency'", "schema mismatch on column amount", "out of memory"])
        st["load"] = "skipped (upstream failed)" if d == "easy" else "skipped"
        if d == "boundary":
            st["extract"] = "success (2 retries)"
    else:
        d = avail(diff, "easy", "boundary", "decoy")
        if d == "boundary":
            st["load"] = "failed: " + rng.choice(["warehouse connection refused", "permission denied on target table"])
        elif d == "decoy":
            st["transform"] = f"success (0 failed records, {rng.randint(0, 40)} warnings)"
    if rng.random() < 0.5:
        return {"job": job, "run": uid(rng, "run_"), "stages": st}, d
    return f"[{job} {day(rng)}] " + " -> ".join(f"{k}: {v}" for k, v in st.items()), d


def g_scheduled_trigger(rng, fact, diff):
    job = rng.choice(JOBS)
    cron = rng.choice(["0 2 * * *", "30 4 * * *", "0 */6 * * *", "15 1 * * 1-5"])
    rec = {"job": job, "run_id": uid(rng, "run_"), "schedule": cron}
    if fact:
        d = avail(diff, "easy", "decoy")
        rec["triggered_by"] = "scheduler"
        if d == "decoy":
            rec["note"] = f"{handle(rng)} asked about a manual run earlier; none was started"
    else:
        d = avail(diff, "easy", "decoy")
        rec["triggered_by"] = f"manual ({handle(rng)})"
        if d == "decoy":
            rec["note"] = "rerun of the failed scheduled run"
    rec["status"] = rng.choice(["success", "failed", "running"])
    return rec, d


# --------------------------------------------------------------------------------------------
# calendars and scheduling
# --------------------------------------------------------------------------------------------
MEET = ["1:1 with {n}", "Design review", "Vendor call", "Sprint planning", "Dentist", "Budget sync", "Interview: {n}", "Team lunch"]


def g_overlap(rng, fact, diff):
    dd = day(rng)
    ex_s = rng.randint(8, 15) * 60 + rng.choice([0, 30])
    ex_e = ex_s + rng.choice([30, 60, 90])
    ln = rng.choice([30, 45, 60])
    if fact:
        d = avail(diff, "easy", "boundary")
        ns = ex_e - 15 if d == "boundary" else ex_s + rng.choice([0, 15])
        nd = dd
    else:
        d = avail(diff, "easy", "boundary", "decoy")
        ns, nd = {"easy": (ex_e + rng.choice([60, 120]), dd), "boundary": (ex_e, dd), "decoy": (ex_s, dd[:-2] + f"{int(dd[-2:]) % 28 + 1:02d}")}[d]
    fmt = lambda m: f"{m // 60:02d}:{m % 60:02d}"
    ev = [{"title": rng.choice(MEET).format(n=rng.choice(FIRST)), "date": dd, "start": fmt(ex_s), "end": fmt(ex_e)}]
    other = rng.choice([6 * 60, 6 * 60 + 30, 7 * 60])  # always before any new meeting (those start at 08:00 or later)
    ev.append({"title": rng.choice(MEET).format(n=rng.choice(FIRST)), "date": dd, "start": fmt(other), "end": fmt(other + 30)})
    rng.shuffle(ev)
    new = {"title": rng.choice(["Quarterly review", "Customer demo", "Hiring debrief", "Architecture chat"]), "date": nd, "start": fmt(ns), "end": fmt(ns + ln)}
    if rng.random() < 0.4:
        return ("Calendar: " + "; ".join(f"{e['title']} {e['date']} {e['start']}-{e['end']}" for e in ev) +
                f". New: {new['title']} {new['date']} {new['start']}-{new['end']}."), d
    return {"calendar": ev, "new_meeting": new}, d


def g_all_accepted(rng, fact, diff):
    names = [person(rng) for _ in range(rng.randint(3, 6))]
    att = [{"name": n, "response": "accepted"} for n in names]
    if fact:
        d = avail(diff, "easy", "decoy")
        if d == "decoy":
            att[rng.randrange(len(att))]["comment"] = "might be a few minutes late, sorry"
    else:
        d = avail(diff, "easy", "boundary", "decoy")
        k = rng.randrange(len(att))
        if d == "easy":
            for a in att[: len(att) // 2 + 1]:
                a["response"] = rng.choice(["declined", "no response"])
        elif d == "boundary":
            att[k]["response"] = rng.choice(["tentative", "no response"])
        else:
            att[k]["response"] = "declined"
            att[k]["comment"] = "Happy to join next time, send me the notes!"
    mt = {"meeting": rng.choice(["Roadmap review", "Offsite planning", "Incident retro", "Launch go/no-go"]), "date": day(rng), "attendees": att}
    if rng.random() < 0.35:
        return f"{mt['meeting']} ({mt['date']}): " + ", ".join(
            f"{a['name']} - {a['response']}" + (f" (\"{a['comment']}\")" if "comment" in a else "") for a in att), d
    return mt, d


def g_moved_later(rng, fact, diff):
    title = rng.choice(MEET).format(n=rng.choice(FIRST))
    dd = day(rng)
    t0 = rng.randint(9, 15)
    by = person(rng)
    if fact:
        d = avail(diff, "easy", "boundary")
        t1 = t0 + (1 if d == "boundary" else rng.randint(2, 3))
        log = [f"{title} created for {dd} {t0:02d}:00", f"{by} moved {title} from {t0:02d}:00 to {t1:02d}:00 on {dd}"]
    else:
        d = avail(diff, "easy", "boundary", "decoy")
        if d == "easy":
            log = [f"{title} created for {dd} {t0:02d}:00", f"{by} cancelled {title}"]
        elif d == "boundary":
            t1 = t0 - rng.randint(1, 2)
            log = [f"{title} created for {dd} {t0:02d}:00", f"{by} moved {title} from {t0:02d}:00 to {t1:02d}:00 on {dd}"]
        else:
            log = [f"{title} created for {dd} {t0:02d}:00", f"{by} proposed moving {title} to {t0 + 2:02d}:00",
                   f"organizer declined the proposal; {title} stays at {t0:02d}:00"]
    return "\n".join(f"- {x}" for x in log), d


def g_flag_all(rng, fact, diff):
    flag = rng.choice(["new_checkout", "dark_mode", "smart_search", "bulk_export", "v2_pricing_page", "instant_refunds"])
    rec = {"flag": flag, "environment": "production", "owner": handle(rng)}
    if fact:
        d = avail(diff, "easy", "boundary")
        rec.update({"enabled": True, "rollout_percent": 100})
        if d == "boundary":
            rec["history"] = [f"rollout {p}%" for p in (10, 50, 100)]
    else:
        d = avail(diff, "easy", "boundary", "decoy")
        if d == "easy":
            rec.update({"enabled": False, "rollout_percent": 0})
        elif d == "boundary":
            rec.update({"enabled": True, "rollout_percent": rng.choice([90, 95, 99])})
        else:
            rec.update({"enabled": True, "rollout_percent": rng.choice([5, 10, 25]), "targeting": "internal staff only"})
    return rec, d


# --------------------------------------------------------------------------------------------
# task table: (id, instructions, criteria, generator, negated)
# --------------------------------------------------------------------------------------------
YN = {"true": "Yes", "false": "No"}
SPECS = [
    # agent traces
    ("search-first", "The agent used a search tool before its first answer to the user.", None, g_search_first, False),
    ("search-first-obj", {"check": "A search or retrieval tool was called before the assistant first answered.", "note": "Use the order of the steps."},
     None, g_search_first, False),
    ("confirm-delete", "The assistant asked the user for confirmation before deleting files.", None, g_confirm_delete, False),
    ("delete-unconfirmed", "Did the assistant delete files without first getting the user's go-ahead?", YN, g_confirm_delete, True),
    ("number-used", "The final answer uses the number returned by the tool.", None, g_number_used, False),
    ("number-mismatch", {"check": "The number in the assistant's reply differs from the number in the tool result."},
     {"true": "Mismatch", "false": "Same number"}, g_number_used, True),
    ("retry", "The agent retried a failing tool call.", None, g_retry, False),
    ("completed", "The user's request was fully completed.", None, g_completed, False),
    ("email-to", "Was the email sent to the address the user provided?", YN, g_email_to, False),
    ("failure-told", "The agent told the user that the action failed.", None, g_failure_told, False),
    ("lookup-first", "The agent looked up the order before issuing the refund.", None, g_lookup_first, False),
    ("migration-ran", "Did the agent actually apply the migration (not just plan or dry-run it)?", None, g_migration_ran, False),
    ("clarify", "The assistant asked a clarifying question before taking any action.", None, g_clarify, False),
    ("time-booked", "The event was created at the time the user asked for.", None, g_time_booked, False),
    ("budget", {"check": "The booked hotel costs no more per night than the user's stated maximum."}, {"true": "Within budget", "false": "Over budget"},
     g_budget, False),
    # CI/CD
    ("tests-passed", "Every test passed in the last run.", None, g_tests_passed, False),
    ("tests-anyfail", "Did at least one test fail in the most recent run?", YN, g_tests_passed, True),
    ("rolled-back", "Did the deployment get rolled back?", None, g_rolled_back, False),
    ("not-rolled-back", "The deployment was not rolled back.", None, g_rolled_back, True),
    ("prod-deploy", "The deployment to production finished successfully.", None, g_prod_deploy, False),
    ("prod-deploy-q", {"question": "Is the new version live in production?", "note": "Judge by the production stage only."}, YN, g_prod_deploy, False),
    ("suite-failed", "Did a test in the payments suite fail?", None, g_suite_failed, False),
    ("canary", "The canary was promoted to 100% of traffic.", None, g_canary, False),
    ("four-eyes", "The production deploy was approved by someone other than the person who requested it.", None, g_four_eyes, False),
    ("flaky-rerun", "The test that timed out in attempt 1 passed when it was re-run.", None, g_flaky_rerun, False),
    # incidents / alerts
    ("after-config", "The incident started after the config change.", None, g_after_config, False),
    ("before-config", {"check": "The problems began before anyone changed the configuration."}, None, g_after_config, True),
    ("paged", "Was the on-call engineer paged?", YN, g_paged, False),
    ("ack-sla", "The alert was acknowledged within 5 minutes of firing.", None, g_ack_sla, False),
    ("root-cause", "The incident report identifies a root cause.", None, g_root_cause, False),
    ("customer-impact", "Customers were affected by the incident.", None, g_customer_impact, False),
    ("no-customer-impact", "Was the incident free of customer impact?", YN, g_customer_impact, True),
    ("resolved", "The incident is resolved.", None, g_resolved, False),
    ("still-open", {"question": "Is the incident still open?", "note": "Go by the latest status update."}, YN, g_resolved, True),
    ("above-threshold", "The reported value is above the alert threshold.", None, g_above_threshold, False),
    ("scaled-up", "The service was scaled up to more replicas.", None, g_scaled_up, False),
    # records / access logs
    ("payment-ok", "Did the most recent request to /v1/payments succeed?", None, g_last_payment_ok, False),
    ("email-verified", "The customer's email address is verified.", None, g_email_verified, False),
    ("payroll-blocked", "The download of payroll_export.csv was blocked.", None, g_payroll_blocked, False),
    ("login-after-fail", "A successful login followed the failed attempts.", None, g_login_after_fail, False),
    ("rows-updated", "The UPDATE statement changed at least one row.", None, g_rows_updated, False),
    ("backup", "The nightly backup completed successfully.", None, g_backup, False),
    ("cert-renewed", "The certificate was replaced before the old one expired.", None, g_cert_renewed, False),
    # code review
    ("pr-approved", "The reviewer approved the pull request.", None, g_pr_approved, False),
    ("pr-merged", "Was the pull request merged?", YN, g_pr_merged, False),
    ("threads-resolved", "Every review thread is marked resolved.", None, g_threads_resolved, False),
    # pipelines
    ("rows-match", "The load step wrote as many rows as the extract step read.", None, g_rows_match, False),
    ("transform-failed", "The transform stage failed.", None, g_transform_failed, False),
    ("scheduled", {"check": "This run was started by the scheduler, not manually."}, {"true": "Scheduled", "false": "Manual"}, g_scheduled_trigger, False),
    # calendars / flags
    ("overlap", "The new meeting overlaps an existing event on the calendar.", None, g_overlap, False),
    ("all-accepted", "Did all invitees accept the meeting?", YN, g_all_accepted, False),
    ("moved-later", "The meeting was moved to a later time.", None, g_moved_later, False),
    ("flag-all", "The feature flag is on for all production users.", None, g_flag_all, False),
]

# task id -> domain label (by id prefix; the first matching prefix wins)
DOMAIN = [("email-verified", "privacy"), ("payroll", "security_access"), ("login", "security"), ("cert", "security"),
          ("suite", "software_qa"), ("flaky", "software_qa"), ("tests", "software_qa"),
          ("rolled", "devops"), ("not-rolled", "devops"), ("prod", "devops"), ("canary", "devops"), ("four", "devops"),
          ("scaled", "devops"), ("flag", "devops"),
          ("after", "it_operations"), ("before", "it_operations"), ("paged", "it_operations"), ("ack", "it_operations"),
          ("root", "it_operations"), ("customer", "it_operations"), ("no-customer", "it_operations"), ("resolved", "it_operations"),
          ("still", "it_operations"), ("above", "it_operations"), ("payment", "it_operations"), ("backup", "it_operations"),
          ("pr-", "code_review"), ("threads", "code_review"), ("rows", "data_quality"), ("transform", "data_quality"),
          ("scheduled", "data_quality"), ("overlap", "scheduling"), ("all-accepted", "scheduling"), ("moved", "scheduling")]


def domain_of(tid):
    return next((dm for pre, dm in DOMAIN if tid.startswith(pre)), "agent_traces")


def est_tokens(state):
    """Rough token estimate (words x1.3, punctuation 1 each) used to keep states inside the 512 window."""
    txt = state if isinstance(state, str) else json.dumps(state)
    return int(1.3 * len(re.findall(r"\w+", txt)) + len(re.findall(r"[^\w\s]", txt)))


def _gen_for(g, neg):
    def gen(rng, key, diff):
        for _ in range(6):
            state, d = g(rng, (key == "yes") != neg, diff)
            if est_tokens(state) <= 380:
                return state, d
        return None
    return gen


def _tasks_for(domain):
    def fn(rng, fam):
        out = []
        for tid, q, crit, g, neg in SPECS:
            if domain_of(tid) != domain:
                continue
            t = Task(f"co-{tid}", fam, "noul", q, crit, lambda k: k == "yes", ["yes", "no"])
            t.custom_gen = _gen_for(g, neg)
            out.append(t)
        return out
    return fn


def _host(domain):
    f = Family(id=f"co-{domain}", domain=domain, labels=[Label("yes", ["y"], ["y"]), Label("no", ["n"], ["n"])], choice_q=["-"],
               n_choice=0, items_per_task=24, extra_tasks=_tasks_for(domain))
    f.noul_per_label = 0
    return f


FAMILIES = [_host(dm) for dm in dict.fromkeys(domain_of(s[0]) for s in SPECS)]
