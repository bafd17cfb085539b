"""Code review, data quality and CI failure families."""
import random
from common import Family, Label, Task, fill, person, FIRST, LAST, CITY

L = Label

V = ["user", "account", "order", "item", "record", "customer", "invoice", "product", "ticket", "entry"]


def var(rng):
    return rng.choice(V)


CODE = {
    "sql_injection": [
        'def get_{v}(conn, {v}_id):\n    query = f"SELECT * FROM {v}s WHERE id = {{{v}_id}}"\n    return conn.execute(query).fetchone()',
        'app.get("/{v}s", (req, res) => {{\n  db.query("SELECT * FROM {v}s WHERE name = \'" + req.query.name + "\'", (err, rows) => res.json(rows));\n}});',
        'String sql = "DELETE FROM {v}s WHERE owner = \'" + request.getParameter("owner") + "\'";\nstatement.executeUpdate(sql);',
        'cursor.execute("UPDATE {v}s SET status = \'%s\' WHERE id = %s" % (status, {v}_id))',
        'rows, err := db.Query("SELECT email FROM {v}s WHERE country = \'" + r.URL.Query().Get("country") + "\'")',
    ],
    "hardcoded_secret": [
        'STRIPE_KEY = "sk_live_51Hx{r}Qz8"\nclient = stripe.Client(api_key=STRIPE_KEY)',
        'const AWS_SECRET_ACCESS_KEY = "wJalrXUtnFEMI/K7MDENG/bPxRfiCY{r}";\nconst s3 = new S3({{ secretAccessKey: AWS_SECRET_ACCESS_KEY }});',
        'db_password = "Sup3rS3cret!{r}"\nengine = create_engine(f"postgresql://admin:{{db_password}}@prod-db/{v}s")',
        'private static final String API_TOKEN = "ghp_{r}aB93kLmNq";',
    ],
    "bug": [
        'def last_{v}({v}s):\n    return {v}s[len({v}s)]',
        'for (let i = 0; i <= {v}s.length; i++) {{\n  total += {v}s[i].price;\n}}',
        'def is_adult(age):\n    return age > 18  # spec: 18 and over counts as adult',
        'def average(values):\n    return sum(values) / len(values)  # called with an empty list when there are no {v}s',
        'if ({v}.status = "closed") {{\n  archive({v});\n}}',
        'def apply_discount(price, pct):\n    return price - pct  # pct is a percentage like 15',
    ],
    "performance": [
        'for {v} in {v}s:\n    owner = db.query(User).filter(User.id == {v}.owner_id).first()  # one query per {v}\n    print(owner.name)',
        'result = []\nfor a in {v}s:            # ~100k items\n    for b in {v}s:\n        if a.id == b.parent_id:\n            result.append((a, b))',
        'for line in open("big.log"):\n    config = json.load(open("config.json"))  # re-read for every line\n    process(line, config)',
        'const ids = {v}s.map(x => x.id);\nfor (const x of incoming) {{ if (ids.includes(x.id)) {{ /* O(n*m) on 50k items */ }} }}',
        'def get_all_{v}s():\n    return list(db.{v}s.find({{}}))  # loads the whole 20M-row collection into memory on every request',
    ],
    "style": [
        'def CalcTotal( X,y ):\n  return X+y',
        'var  {v}Count=0\n{v}Count = {v}Count+1 ;',
        'def f(a, b, c):\n    # TODO rename\n    tmp = a\n    return tmp * b + c',
        'public int getval(){{return this.VAL;}}',
    ],
    "ok": [
        'def get_{v}(conn, {v}_id):\n    return conn.execute("SELECT * FROM {v}s WHERE id = %s", ({v}_id,)).fetchone()',
        'def average(values):\n    if not values:\n        return 0.0\n    return sum(values) / len(values)',
        'api_key = os.environ["PAYMENT_API_KEY"]\nclient = PaymentClient(api_key=api_key)',
        '{v}s_by_id = {{x.id: x for x in {v}s}}\nmatches = [{v}s_by_id[i] for i in ids if i in {v}s_by_id]',
        'for (let i = 0; i < {v}s.length; i++) {{\n  total += {v}s[i].price;\n}}',
        'owners = {{u.id: u for u in db.query(User).filter(User.id.in_([x.owner_id for x in {v}s]))}}',
    ],
}
DECOY_MSG = {
    "sql_injection": ["PR: 'Use parameterised queries everywhere' (but this file was missed)", "Title: Fix SQL injection in search"],
    "hardcoded_secret": ["PR: 'Move secrets to environment variables'", "Title: security hardening"],
    "bug": ["PR: 'Fix off-by-one error'", "Title: performance improvement for the {v} list"],
    "performance": ["PR: 'Fix security issue in {v} lookup'", "Title: optimise {v} loading"],
    "style": ["PR: 'Critical security fix'", "Title: fix bug in totals"],
    "ok": ["PR: 'Fix SQL injection' - replaces string concatenation with a bound parameter", "Title: remove hard-coded key",
           "Title: fix crash on empty list"],
}
BOUND_MSG = ["Refactor {v} helpers", "Small cleanup", "Follow-up to review comments", "Add {v} endpoint", "WIP: {v} sync"]


def gen_code(rng, key, diff):
    v = var(rng)
    code = rng.choice(CODE[key]).format(v=v, r=str(rng.randint(1000, 9999)))
    d = "easy"
    msg = fill(rng, rng.choice(BOUND_MSG)).replace("{v}", v)
    if diff == "decoy":
        msg = rng.choice(DECOY_MSG[key]).replace("{v}", v)
        d = "decoy"
    elif diff == "boundary":
        d = "boundary" if key in ("ok", "style") else "easy"
    if rng.random() < 0.5:
        return {"pr_title": msg, "author": rng.choice(FIRST).lower(), "file": rng.choice(["app/db.py", "src/api.js", "service/handler.go", "lib/utils.py", "src/Main.java"]),
                "added_code": code}, d
    return f"{msg}\n\n+ " + code.replace("\n", "\n+ "), d


CODEREV = Family(
    id="eng-review", domain="code_review", gen=gen_code, n_choice=8, noul_per_label=1, items_per_task=24,
    choice_q=["What is the main problem with this code change?", "Classify the review finding for this diff.",
              "What should the reviewer flag in the added code?", "Review the added code: which category of issue does it have? Judge the code, not the PR title."],
    labels=[
        L("sql_injection", ["SQL injection", "injection vulnerability"], ["User input concatenated into a SQL query", "Query built from untrusted input"],
          nq=["Does the added code contain a SQL injection vulnerability?"]),
        L("hardcoded_secret", ["hardcoded secret", "leaked credential"], ["A password, key or token written in the source", "Credentials committed to code"],
          nq=["Does the change commit a secret or credential into the source code?"]),
        L("bug", ["logic bug", "correctness bug", "bug"], ["The code gives wrong results or crashes", "Incorrect behaviour"],
          nq=["Does the added code contain a correctness bug?"]),
        L("performance", ["performance issue", "inefficiency"], ["Correct but needlessly slow or memory-hungry", "Scalability problem"],
          nq=["Does the change introduce a performance problem?"]),
        L("style", ["style only", "formatting/naming"], ["Works correctly; only naming or formatting problems", "Cosmetic issues"],
          nq=["Are the only problems in this code cosmetic (naming/formatting)?"]),
        L("ok", ["no issues", "looks good", "LGTM"], ["Correct, safe and reasonable", "Nothing to flag"],
          nq=["Is this change fine to approve as is?"]),
    ])


# ---------------------------------------------------------------- data quality
def dq_record(rng, key, diff):
    kind = rng.choice(["customer", "order", "employee"])
    d = "easy"
    if kind == "customer":
        fn, ln = rng.choice(FIRST), rng.choice(LAST)
        rec = {"customer_id": f"C{rng.randint(10000, 99999)}", "name": f"{fn} {ln}", "email": f"{fn.lower()}.{ln.lower()}@example.com",
               "age": rng.randint(19, 80), "country": rng.choice(["US", "DE", "GB", "FR", "KE"]), "signup_date": f"2025-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"}
        if key == "missing_field":
            f = rng.choice(["email", "name", "customer_id"])
            rec[f] = rng.choice([None, ""])
        elif key == "invalid_format":
            f = rng.choice(["email", "signup_date"])
            rec[f] = rec[f].replace("@", " at ") if f == "email" else rng.choice(["2025-13-45", "31/02/2025", "next tuesday"])
        elif key == "out_of_range":
            rec["age"] = rng.choice([-3, 0, 212, 187, 999])
        elif key == "inconsistent":
            rec["last_login"] = "2024-01-05"
            rec["signup_date"] = "2025-06-10"
            rec["note"] = "last_login is before signup_date"
            if rng.random() < 0.5:
                del rec["note"]
    elif kind == "order":
        q = rng.randint(1, 20)
        price = round(rng.uniform(3, 200), 2)
        rec = {"order_id": f"O-{rng.randint(100000, 999999)}", "sku": f"SKU-{rng.randint(1000, 9999)}", "quantity": q, "unit_price": price,
               "order_date": "2026-03-02", "ship_date": "2026-03-05", "status": "shipped"}
        if key == "missing_field":
            rec[rng.choice(["sku", "order_id"])] = None
        elif key == "invalid_format":
            rec["order_date"] = rng.choice(["03/02/26?", "2026-3-2x", "March-ish"])
        elif key == "out_of_range":
            rec[rng.choice(["quantity", "unit_price"])] = rng.choice([-4, -12.5, 0])
        elif key == "inconsistent":
            rec["ship_date"] = "2026-02-20"
    else:
        rec = {"employee_id": f"E{rng.randint(1000, 9999)}", "name": person(rng), "department": rng.choice(["Sales", "IT", "HR", "Finance"]),
               "start_date": "2023-05-01", "salary_eur": rng.randint(32000, 98000), "phone": f"+44 20 7946 {rng.randint(1000, 9999)}"}
        if key == "missing_field":
            rec[rng.choice(["department", "name"])] = None
        elif key == "invalid_format":
            rec["phone"] = rng.choice(["call me", "+44 20 79XX ABC", "12"])
        elif key == "out_of_range":
            rec["salary_eur"] = rng.choice([-5000, 0, 98000000])
        elif key == "inconsistent":
            rec["end_date"] = "2021-01-31"
    if diff == "decoy" and key == "ok":
        rec["comment"] = rng.choice(["Looks like an error but checked: values are valid.", "Flagged by old rule, cleared by data steward."])
        d = "decoy"
    elif diff == "boundary" and key != "ok":
        d = "boundary" if key in ("inconsistent",) else "easy"
    return rec, d


DQ = Family(
    id="eng-dq", domain="data_quality", gen=dq_record, n_choice=7, noul_per_label=1, items_per_task=24,
    choice_q=["What data quality problem does this record have?", "Validate the record and report the issue type.",
              "Which check does this row fail?", "Data quality triage for this record."],
    labels=[
        L("ok", ["valid", "no issue", "clean"], ["All fields present, well-formed and plausible", "Passes every check"],
          nq=["Is this record clean and valid?"]),
        L("missing_field", ["missing field", "missing value"], ["A required field is null or empty", "Required value absent"],
          nq=["Is a required field missing or empty in this record?"]),
        L("invalid_format", ["invalid format", "malformed value"], ["A value has the wrong format (email, date, phone)", "Badly formatted field"],
          nq=["Does a field in this record have an invalid format?"]),
        L("out_of_range", ["out of range", "implausible value"], ["A number is impossible or outside the allowed range", "Value outside valid bounds"],
          nq=["Does the record contain an impossible or out-of-range number?"]),
        L("inconsistent", ["inconsistent fields", "logical conflict"], ["Fields contradict each other, e.g. dates in the wrong order", "Cross-field inconsistency"],
          nq=["Do two fields in this record contradict each other?"]),
    ])


# ---------------------------------------------------------------- CI failures
CI = Family(
    id="eng-ci", domain="devops", n_choice=7, noul_per_label=1, items_per_task=22,
    wrap=lambda rng, t, k: t if rng.random() < 0.6 else {"pipeline": rng.choice(["build", "test", "release", "nightly"]), "job": rng.choice(["linux-x64", "unit", "integration", "e2e"]),
                                                         "status": "failed", "log_tail": t},
    choice_q=["Why did this CI job fail?", "Classify the build failure from the log.", "What is the root cause category of this pipeline failure?",
              "Which kind of failure is shown in this log?"],
    context=["Triggered by push to main.", "Duration {nn}m {n}s.", "Commit {nn}{n}f{n}a."],
    labels=[
        L("compile_error", ["compilation error", "build error"], ["Code does not compile or type-check", "Syntax or type errors"],
          nq=["Did the job fail because the code does not compile?"],
          easy=["src/parser.ts(41,17): error TS2339: Property 'items' does not exist on type 'Response'.",
                "error[E0308]: mismatched types: expected `u32`, found `String` at src/main.rs:88",
                "main.go:23:2: undefined: parseConfig", "SyntaxError: invalid syntax (models.py, line 57)",
                "[ERROR] /src/App.java:[112,9] cannot find symbol: method getTotal()"],
          boundary=["Build step 'tsc -b' exited with code 2 after reporting 3 type errors in services/."]),
        L("test_failure", ["test failure", "failing tests"], ["Code builds but tests assert wrong results", "Unit or integration tests failed"],
          nq=["Did the pipeline fail because of failing tests?"],
          easy=["FAILED tests/test_invoice.py::test_total_with_tax - AssertionError: assert 118.0 == 120.0",
                "✕ renders the checkout button (45 ms)\n  Expected: true\n  Received: false\nTests: 1 failed, 212 passed",
                "--- FAIL: TestParseDate (0.00s) parse_test.go:31: got 2026-02-01, want 2026-01-31",
                "Tests run: 84, Failures: 2, Errors: 0. testRefundAmount(PaymentTest): expected:<50> but was:<45>"],
          decoy=[("timeout", "Test 'test_timeout_is_respected' FAILED: assert result.status == 'timeout', got 'ok'. The job itself finished in 3 minutes.")]),
        L("dependency", ["dependency resolution", "package install failure"], ["Packages could not be downloaded or versions conflict", "Install/resolve step failed"],
          nq=["Did the failure come from installing or resolving dependencies?"],
          easy=["npm ERR! ERESOLVE unable to resolve dependency tree: peer react@\"^17\" required by some-widget@2.1.0",
                "ERROR: Could not find a version that satisfies the requirement numpy==3.9.1",
                "go: github.com/example/lib@v1.4.0: reading go.sum: checksum mismatch",
                "Could not resolve all dependencies for configuration ':app:runtimeClasspath'. Artifact not found: com.example:core:2.3"]),
        L("timeout", ["timeout / infrastructure", "runner problem", "infra failure"], ["The job was killed or the runner/network failed, not the code", "CI infrastructure issue"],
          nq=["Did the job fail for infrastructure reasons rather than code?"],
          easy=["The job exceeded the maximum execution time of 60 minutes and was cancelled.",
                "Runner lost communication with the server. The runner has received a shutdown signal.",
                "No space left on device while writing build cache to /home/runner.",
                "Error response from daemon: toomanyrequests: You have reached your pull rate limit."],
          decoy=[("test_failure", "All 412 tests had passed when the runner was terminated: 'The operation was canceled' after the VM was preempted.")]),
        L("lint", ["lint / formatting", "style check"], ["Linter or formatter rejected the code", "Style check failed"],
          nq=["Did the job fail only on linting or formatting checks?"],
          easy=["eslint: src/app.js 12:5 error 'unusedVar' is assigned a value but never used no-unused-vars",
                "would reformat src/utils.py\nOh no! 1 file would be reformatted.", "flake8: app/views.py:88:80: E501 line too long (97 > 79 characters)",
                "Prettier check failed: 3 files are not formatted. Run prettier --write."]),
    ])

FAMILIES = [CODEREV, DQ, CI]
