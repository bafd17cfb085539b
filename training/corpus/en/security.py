"""Security alerts, fraud screening and IT operations alerts."""
import random
from common import Family, Label, Task, fill, person, FIRST, LAST, CITY

L = Label

COUNTRIES = ["US", "GB", "DE", "FR", "NG", "IN", "BR", "JP", "CA", "AU", "PT", "PL", "KE", "MX", "NL"]


# ------------------------------------------------------------------------------------------ fraud
FLAG_NAMES = ["new_device", "country_mismatch", "amount_spike", "velocity", "proxy_ip", "address_mismatch"]


def fraud_txn(rng, nflags, diff):
    home = rng.choice(COUNTRIES)
    avg = rng.randint(20, 300)
    flags = set(rng.sample(FLAG_NAMES, nflags))
    t = {
        "transaction_id": f"tx_{rng.randint(10**7, 10**8 - 1)}",
        "customer_since": f"20{rng.randint(15, 25)}-{rng.randint(1, 12):02d}",
        "home_country": home,
        "ip_country": rng.choice([c for c in COUNTRIES if c != home]) if "country_mismatch" in flags else home,
        "amount_usd": round(avg * (rng.uniform(6, 15) if "amount_spike" in flags else rng.uniform(0.4, 1.6)), 2),
        "avg_amount_90d_usd": avg,
        "device_seen_before": "new_device" not in flags,
        "attempts_last_hour": rng.randint(5, 14) if "velocity" in flags else rng.randint(1, 2),
        "ip_is_proxy_or_tor": "proxy_ip" in flags,
        "shipping_matches_billing": "address_mismatch" not in flags,
    }
    if diff == "decoy" and nflags <= 1:
        # scary-looking but benign fields
        t["merchant_category"] = rng.choice(["jewelry", "electronics", "gift_cards"])
        t["note"] = "Customer called ahead to confirm this purchase."
    return t


def gen_fraud(rng, key, diff):
    lvl = int(key)
    n = {0: 0, 1: 1, 2: 2, 3: rng.randint(3, 5)}[lvl]
    d = "boundary" if lvl in (1, 2) and diff != "easy" else ("decoy" if diff == "decoy" and lvl <= 1 else "easy")
    return fraud_txn(rng, n, d), d


FRAUD_LEVELS = [
    ["Normal: matches the customer's usual behaviour", "Low risk", "No red flags"],
    ["One unusual signal, probably legitimate", "Slightly unusual", "A single red flag"],
    ["Two red flags together, needs review", "Suspicious", "Two independent red flags"],
    ["Three or more red flags, likely fraud", "High risk, block", "Many red flags at once"],
]
FRAUD = Family(
    id="sec-fraud", domain="fraud", ordered=True, gen=gen_fraud, n_score=4, n_choice=2, items_per_task=24,
    choice_q=["What fraud risk tier is this transaction?", "Assign a risk tier to the payment."],
    score_q=["Rate the fraud risk of this card transaction. Red flags: new device, IP country differs from home country, amount far above the 90-day average, many attempts in the last hour, proxy/Tor IP, shipping differs from billing.",
             "How risky is this transaction? Count the red flags (unseen device, foreign IP, amount spike, repeated attempts, anonymising IP, address mismatch).",
             "Fraud risk score for the payment attempt, based on how many warning signs it shows (device, location, amount, velocity, proxy, address)."],
    threshold_q=[(2, "Should this transaction be held for manual review? Hold when at least two of these apply: new device, IP country differs from home country, amount more than 5x the 90-day average, more than 3 attempts in the last hour, proxy/Tor IP, shipping address differs from billing."),
                 (3, "Should this payment be blocked outright? Block only when three or more red flags are present (new device, foreign IP, amount spike, velocity, proxy IP, address mismatch)."),
                 (1, "Does this transaction show at least one fraud red flag (new device, foreign IP, amount spike over 5x average, more than 3 attempts/hour, proxy IP, address mismatch)?")],
    labels=[L(str(i), [n], FRAUD_LEVELS[i]) for i, n in enumerate(["low", "slight", "review", "high"])],
)


# ------------------------------------------------------------------------------------------ security alerts
def sec_event(rng, key, diff):
    user = f"{rng.choice(FIRST).lower()}.{rng.choice(LAST).lower()}"
    host = f"{rng.choice(['LAPTOP', 'WS', 'SRV', 'DB'])}-{rng.randint(100, 999)}"
    ip = f"{rng.randint(11, 223)}.{rng.randint(0, 255)}.{rng.randint(0, 255)}.{rng.randint(1, 254)}"
    d = "easy"
    if key == "brute_force":
        n = rng.randint(40, 900)
        ev = {"source": "auth", "summary": f"{n} failed logins for account {user} from {ip} in {rng.randint(2, 15)} minutes",
              "successful_logins": rng.choice([0, 0, 1]), "target": rng.choice(["vpn", "sso", "ssh", "owa"])}
        if diff != "easy":
            ev["summary"] = f"{rng.randint(25, 60)} failed logins across {rng.randint(15, 40)} different accounts from {ip}, one attempt each few seconds"
            d = "boundary"
    elif key == "malware":
        proc = rng.choice(["invoice_scan.pdf.exe", "svch0st.exe", "update_helper.js", "rundll32 loading a DLL from the Temp folder", "powershell -enc with a base64 payload"])
        ev = {"source": "edr", "host": host, "summary": f"Process '{proc}' started by {user}; endpoint agent flagged it as a known trojan signature",
              "action_taken": rng.choice(["quarantined", "none", "blocked"])}
        if diff != "easy":
            ev["summary"] = f"Macro in an Excel attachment spawned {proc} on {host}, which then contacted {ip}"
            d = "boundary"
        if diff == "decoy":
            ev["summary"] += ". Note: the login that preceded it was a normal, successful first attempt."
            d = "decoy"
    elif key == "exfiltration":
        gb = rng.randint(8, 120)
        ev = {"source": "dlp", "user": user, "summary": f"{gb} GB uploaded from {host} to an unknown personal cloud storage account at 02:{rng.randint(10, 59)}",
              "destination_approved": False, "user_status": rng.choice(["resigned, last day Friday", "active", "on notice"])}
        if diff == "decoy":
            ev["summary"] = f"Backup agent reported success, but separately {user} copied {gb} GB of customer records to a personal USB drive and an unapproved file-sharing site"
            d = "decoy"
    elif key == "phishing_click":
        ev = {"source": "email_gateway", "user": user, "summary": f"{user} clicked a link in an email impersonating the CEO and entered credentials on a look-alike login page",
              "sender_domain": rng.choice(["c0mpany-mail.example.net", "secure-docs-share.example.top"])}
        if diff != "easy":
            ev["summary"] = f"{user} opened a link from an external sender pretending to be IT support; the page asked for the SSO password and the proxy shows a form submission"
            d = "boundary"
    elif key == "privilege_escalation":
        ev = {"source": "iam", "host": host, "summary": f"Account {user} (role: intern) added itself to the Domain Admins group without a change ticket",
              "change_ticket": None}
        if diff != "easy":
            ev["summary"] = f"A service account on {host} that normally only reads logs was granted full administrator rights by an unknown process"
            d = "boundary"
    else:  # benign
        opts = [f"Scheduled nightly backup copied {rng.randint(50, 400)} GB from {host} to the approved backup vault (change ticket CHG-{rng.randint(1000, 9999)})",
                f"{user} mistyped the password twice and then logged in successfully from the usual office IP",
                f"Vulnerability scanner run by the security team from the approved scanner host probed {rng.randint(50, 200)} ports on {host} during the maintenance window",
                f"IT admin {user} installed the approved browser update on {rng.randint(20, 90)} laptops via the management console"]
        i = rng.randrange(len(opts))
        ev = {"source": ["backup", "auth", "scanner", "mdm"][i], "summary": opts[i], "approved": True}
        if diff == "decoy":
            ev = {"source": "backup", "summary": opts[0] + ". The alert title says 'possible data exfiltration' but the destination is our own approved backup storage", "approved": True}
            d = "decoy"
        elif diff == "boundary":
            ev["summary"] = f"{user} logged in from {rng.choice(CITY)} while on a business trip recorded in the travel system; the device and MFA were the usual ones"
            d = "boundary"
    ev["time"] = f"2026-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}T{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:00Z"
    if rng.random() < 0.35:
        return f"[{ev['time']}] {ev.get('source', '').upper()} alert: {ev['summary']}.", d
    return ev, d


SECALERT = Family(
    id="sec-alert", domain="security", gen=sec_event, n_choice=8, noul_per_label=1, items_per_task=24,
    choice_q=["What kind of security incident is this alert?", "Classify the security alert.",
              "Which incident category fits this event?", "Triage this SOC alert into a category."],
    labels=[
        L("brute_force", ["brute force", "password guessing", "credential attack"], ["Many failed login attempts / password spraying",
                                                                                  "Repeated guessing of passwords"],
          nq=["Is this a brute-force or password-spraying attack?"]),
        L("malware", ["malware", "malicious software", "infection"], ["Malicious program executing on a device", "Endpoint infection"],
          nq=["Does this alert indicate malware on an endpoint?"]),
        L("exfiltration", ["data exfiltration", "data theft", "data leak"], ["Data copied out of the company without approval",
                                                                             "Unauthorised transfer of data outside"],
          nq=["Is company data being moved out without approval?"]),
        L("phishing_click", ["phishing compromise", "phishing click", "credential phishing"], ["A user fell for a phishing email and gave away credentials",
                                                                                              "Credentials entered on a fake page"],
          nq=["Did a user fall for a phishing email?"]),
        L("privilege_escalation", ["privilege escalation", "unauthorised admin rights", "permission abuse"],
          ["An account gained higher privileges without authorisation", "Unapproved elevation of rights"],
          nq=["Did an account obtain privileges it should not have?"]),
        L("benign", ["benign", "false positive", "expected activity"], ["Approved or expected activity, no incident", "Normal operations"],
          nq=["Is this alert benign expected activity?"]),
    ])


# ------------------------------------------------------------------------------------------ IT ops routing + severity
OPS = Family(
    id="ops-route", domain="it_operations", n_choice=8, noul_per_label=1, items_per_task=24,
    wrap=lambda rng, t, k: t if rng.random() < 0.5 else {"alert": t, "env": rng.choice(["prod", "staging", "prod-eu", "prod-us"]),
                                                         "source": rng.choice(["prometheus", "datadog", "pagerduty", "nagios", "grafana"]),
                                                         "fired_at": f"{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d} UTC"},
    choice_q=["Which on-call team should get this alert?", "Route this alert to the owning team.", "What component is this alert about?",
              "Assign the alert to a resolver group."],
    context=["Runbook link attached.", "Alert fired {n} times in the last hour.", "Ticket auto-created by monitoring."],
    labels=[
        L("database", ["database", "DBA team", "data store"], ["Database servers, replication, queries, connections", "Relational or NoSQL database problems"],
          nq=["Is this alert about a database problem?"],
          easy=["Postgres replication lag on {host} is {nn} minutes and rising.", "MySQL max_connections reached on {host}; new connections are refused.",
                "Slow query log: the orders report query now takes {nn} seconds on the primary database.", "Deadlocks detected on table 'payments' every few seconds.",
                "Database primary failover happened at 03:12; the replica was promoted."],
          boundary=["API latency is high because every request waits on a lock in the customer table.",
                    "Disk on the database server {host} is 93% full, mostly write-ahead log files."],
          decoy=[("network", "Network checks are all green; the timeouts come from the Postgres connection pool on {host} being exhausted.")]),
        L("network", ["network", "NetOps", "networking"], ["Connectivity, DNS, load balancers, firewalls, packet loss", "Network and connectivity issues"],
          nq=["Is the alert about networking or connectivity?"],
          easy=["Packet loss of {pct}% between the {city} office and the data centre.", "DNS resolution failing for internal domains from all pods.",
                "BGP session to upstream provider down on edge router 2.", "Load balancer health checks timing out for the whole eu-west zone.",
                "VPN tunnel to the {city} branch keeps flapping every few minutes."],
          boundary=["Services can't reach each other across availability zones; each works locally.",],
          decoy=[("database", "The database itself is healthy and idle; the app servers just can't reach it because the firewall rule for port 5432 was removed.")]),
        L("storage", ["storage", "storage team", "disks and volumes"], ["Disks, volumes, file shares, object storage capacity or failures", "Storage capacity and disk health"],
          nq=["Is this a storage or disk problem?"],
          easy=["Volume /data on {host} is 98% full.", "RAID array degraded: disk 3 failed on {host}.", "NFS share /mnt/shared is read-only after a controller error.",
                "S3-compatible bucket 'backups' returns slow-down errors on writes.", "SMART warnings on two disks in the storage cluster."],
          boundary=["Log files filled the root partition of {host} and the app stopped writing.",]),
        L("application", ["application", "app team", "service owners"], ["Bugs, error rates, crashes or deploys of our own services", "Application-level errors"],
          nq=["Is this alert about our application code or service behaviour?"],
          easy=["Checkout service error rate is {pct}% since deploy {ver}.", "Out-of-memory crashes in the recommendation worker after the latest release.",
                "Null pointer exceptions spiking in the billing-api logs.", "Background job queue is stuck: the worker throws an unhandled exception on every job.",
                "Feature flag rollout caused 500 errors on the profile page."],
          boundary=["p99 latency of the search API doubled after the release, while CPU and database load look normal.",],
          decoy=[("database", "The 'database' mentioned in the error is just the variable name; the real failure is a divide-by-zero bug in the pricing service introduced in {ver}.")]),
        L("security", ["security", "SecOps", "security operations"], ["Suspicious access, attacks or vulnerabilities", "Possible intrusion or abuse"],
          nq=["Does this alert need the security team?"],
          easy=["WAF blocked {nn}000 SQL injection attempts against /login from a single IP range.", "An SSH key was added to root's authorized_keys on {host} outside any change.",
                "TLS certificate for the public site was replaced with an unknown issuer.", "Unusual outbound traffic from {host} to a known command-and-control address."],
          boundary=["A new admin account 'support2' appeared on {host}; nobody on the team recognises it.",]),
    ])

SEV = Family(
    id="ops-sev", domain="it_operations", ordered=True, n_score=4, n_choice=2, items_per_task=22,
    choice_q=["Assign an incident priority.", "What priority is this incident?"],
    score_q=["How severe is this incident?", "Rate the operational impact of this alert.", "Incident severity (business impact)"],
    threshold_q=[(3, "Should this page the on-call engineer in the middle of the night?"), (2, "Are customers noticeably affected?")],
    wrap=OPS.wrap,
    labels=[
        L("0", ["info"], ["Informational, no impact", "No user impact", "Nothing to do now"],
          easy=["Certificate for the staging site expires in 60 days.", "Nightly backup finished successfully, 3 minutes slower than usual.",
                "Disk on a test VM is 70% full.", "A deprecated API version still receives 3 calls a day from an internal tool."],
          decoy=[("3", "CRITICAL-looking keyword match in logs: the word 'fatal' appeared in a unit test name. No service affected.")]),
        L("1", ["minor"], ["Minor: degraded internal tooling, no customer impact", "Small internal inconvenience", "Low impact, fix during working hours"],
          easy=["The internal wiki search is slow.", "One of three build agents is offline; builds queue a bit longer.",
                "A non-critical batch report for the marketing team failed and can be rerun tomorrow."],
          boundary=["Staging environment is down; developers can't test but production is unaffected."]),
        L("2", ["major"], ["Major: some customers affected or a key feature degraded", "Partial outage or strong degradation", "Customer-facing but not total"],
          easy=["Image uploads fail for about {pct}% of users.", "Password reset emails are delayed by 40 minutes for all users.",
                "The mobile app can't load order history; everything else works."],
          boundary=["Checkout is slow (8 seconds) but still succeeds for all customers."]),
        L("3", ["critical"], ["Critical: full outage, data loss or security breach", "Everything down or data at risk", "All hands, immediate action"],
          easy=["Production website returns 503 for all users in every region.", "Payments are failing for 100% of transactions.",
                "The primary database is corrupted and the last backup is from yesterday.", "Customer data is publicly accessible due to a misconfigured bucket."],
          decoy=[("0", "Low-priority label on the ticket is wrong: the login service is down for every customer right now.")]),
    ])

FAMILIES = [FRAUD, SECALERT, OPS, SEV]
