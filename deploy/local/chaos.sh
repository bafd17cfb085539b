#!/usr/bin/env bash
# The three-replica test against the running Compose stack (deploy/local/compose.sh up -d): load from
# the official Python client through HAProxy while replica 1 is killed (SIGKILL) and started again and
# replica 2 is stopped (SIGTERM: drain) and started again; then the ledger in the stack's PostgreSQL
# is compared with what the clients were told. docs/deploy.md, "Compose".
#
# Usage: STRUCTQA_ADMIN_TOKEN=… LB_PORT=8080 deploy/local/chaos.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
# shellcheck source=deploy/image/podman-env.sh
source deploy/image/podman-env.sh
URL="http://127.0.0.1:${LB_PORT:-8080}"
PY=${PYTHON:-.cache/venv-test/bin/python}
[ -x "$PY" ] || { python3 -m venv .cache/venv-test && .cache/venv-test/bin/python -m pip install -q -e clients/python; }
KEY=$(curl -sf "$URL/admin/keys" -H "authorization: Bearer ${STRUCTQA_ADMIN_TOKEN:?}" -H 'content-type: application/json' \
  -d "{\"account\":\"chaos-$(date +%s)\",\"create_account\":true,\"monthly_allowance\":100000000,\"requests_per_second\":100000,\"processed_tokens_per_second\":100000000,\"in_flight\":1000}" |
  "$PY" -c 'import json,sys; print(json.load(sys.stdin)["key"])')
OUT=$(mktemp)
exec 3> >(SERVER_URL=$URL KEY=$KEY WORKERS=${WORKERS:-4} PREFIX=chaos MAX_SECONDS=300 "$PY" service/test/scaleout/lb_python_load.py >"$OUT")
at() { printf '%6.1f s  %s\n' "$(($(date +%s%N) / 1000000 - T0))e-3" "$1"; }
T0=$(($(date +%s%N) / 1000000))
sleep 5;  at "SIGKILL structqa-1";  podman kill -s KILL structqa_structqa-1_1 >/dev/null
sleep 2;  at "start structqa-1";    podman start structqa_structqa-1_1 >/dev/null
sleep 15; at "SIGTERM structqa-2 (drain)"; podman stop -t 35 structqa_structqa-2_1 >/dev/null
at "structqa-2 exited $(podman inspect structqa_structqa-2_1 --format '{{.State.ExitCode}}')"
sleep 2;  at "start structqa-2";    podman start structqa_structqa-2_1 >/dev/null
sleep 15; at "stop the load (calls still retrying finish first)"
echo stop >&3; exec 3>&-
while ! grep -q '"kind": "done"' "$OUT"; do sleep 1; done
at "load done"
ACCOUNT=$(curl -sf "$URL/v1/usage" -H "authorization: Bearer $KEY" | "$PY" -c 'import json,sys; print(json.load(sys.stdin).get("account_id", ""))' || true)
"$PY" - "$OUT" <<'PY'
import collections, json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
calls = [r for r in rows if r["kind"] == "call"]
attempts = collections.Counter(f'{r["status"]}{":" + r["code"] if r.get("code") else ""}' for r in rows if r["kind"] == "attempt")
ok = [c for c in calls if c["ok"]]
replicas = collections.Counter(r.get("replica") for r in rows if r["kind"] == "attempt" and r["status"] == 200)
print(f"calls {len(calls)}, answered {len(ok)}, failed {len(calls) - len(ok)}; attempts {dict(attempts)}; answered per replica {dict(sorted(replicas.items()))}")
for c in calls:
    if not c["ok"]: print("  failed:", c["key"], c["error"][:160])
json.dump({c["key"]: c["processed_tokens"] for c in ok}, open(sys.argv[1] + ".answered.json", "w"))
PY
podman exec structqa_postgres_1 psql -U structqa -d structqa -At -F ' ' -c \
  "SELECT idempotency_key, COUNT(*), SUM(processed_tokens) FROM usage_records WHERE idempotency_key LIKE 'chaos-%' AND account_id = (SELECT account_id FROM api_keys WHERE prefix = '${KEY:0:17}') GROUP BY idempotency_key" >"$OUT.ledger"
"$PY" - "$OUT" <<'PY'
import json, sys
answered = json.load(open(sys.argv[1] + ".answered.json"))
ledger = {k: (int(n), int(t)) for k, n, t in (l.split() for l in open(sys.argv[1] + ".ledger") if l.strip())}
doubles = [k for k, (n, _) in ledger.items() if n != 1]
missing = [k for k in answered if k not in ledger]
extra = [k for k in ledger if k not in answered]
wrong = [k for k in answered if k in ledger and ledger[k][1] != answered[k]]
print(f"ledger rows {len(ledger)} = answered {len(answered)}: {len(ledger) == len(answered)}; double charges {len(doubles)}; "
      f"answered but not charged {len(missing)}; charged but not answered {len(extra)}; wrong amount {len(wrong)}; "
      f"tokens ledger {sum(t for _, t in ledger.values())} / answered {sum(answered.values())}")
sys.exit(1 if doubles or missing or wrong else 0)
PY
