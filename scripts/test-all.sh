#!/usr/bin/env bash
# The whole test suite (`npm test`): type-check, then every package's tests. Fails loudly on the first error.
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== type-check (tsc, strict)"
npx tsc --noEmit -p service/tsconfig.json

echo "== service tests"
npm test -w @structqa/service
