#!/usr/bin/env bash
# The Debian tools the tests and `npm run chaos` need, installed with apt-get from the machine's own
# apt sources when missing (the project names no mirror). One place for `npm test` (scripts/test-all.sh
# sources this file) and `npm run chaos` (service/chaos/main.ts runs it), so a fresh machine gets the
# same tools either way.
#
#   scripts/tools.sh TOOL…     tools: chromium (the usage-page test), haproxy (the three-replica test),
#                              docker-compose (`docker-compose config` in the deployment tests)
set -euo pipefail

# tool → the file it installs
tool_path() {
  case "$1" in
    chromium) echo /usr/bin/chromium ;;
    haproxy) echo /usr/sbin/haproxy ;;
    docker-compose) echo /usr/bin/docker-compose ;;
    *) echo "unknown tool: $1 (chromium, haproxy, docker-compose)" >&2; return 2 ;;
  esac
}

# ensure_tools TOOL…: apt-get installs those whose file is missing, in one go; exit 1 with one line if it cannot.
ensure_tools() {
  local missing=() tool file
  for tool in "$@"; do
    file=$(tool_path "$tool")
    [ -x "$file" ] || missing+=("$tool")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "installing ${missing[*]} (apt-get)"
  # Chromium with its recommended packages (fonts), the others without.
  local plain=() browser=()
  for tool in "${missing[@]}"; do if [ "$tool" = chromium ]; then browser+=("$tool"); else plain+=("$tool"); fi; done
  (apt-get update -qq &&
    { [ ${#browser[@]} -eq 0 ] || DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${browser[@]}" >/dev/null; } &&
    { [ ${#plain[@]} -eq 0 ] || DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${plain[@]}" >/dev/null; }) ||
    { echo "could not install ${missing[*]} (apt-get): install them, or run as root with apt sources configured" >&2; return 1; }
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  [ $# -gt 0 ] || { echo "usage: scripts/tools.sh TOOL… (chromium, haproxy, docker-compose)" >&2; exit 2; }
  ensure_tools "$@"
fi
