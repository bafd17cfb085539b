#!/usr/bin/env bash
# The Debian mirrors this machine's apt already uses, for deploy/image/build.sh: the project names no
# mirror. Reads the one-line format (/etc/apt/sources.list, sources.list.d/*.list) and the deb822
# format (sources.list.d/*.sources), enabled `deb` entries only.
#
#   deploy/image/apt-sources.sh [APT_DIR]   prints "archive URI" and "security URI" lines (default /etc/apt)
#
# The archive mirror is the first URI serving a suite without a `-security` suffix, the security
# mirror the first serving a `-security` suite; a line is missing when none does.
set -euo pipefail

apt_dir=${1:-/etc/apt}
files=()
[ -f "$apt_dir/sources.list" ] && files+=("$apt_dir/sources.list")
for f in "$apt_dir"/sources.list.d/*.list "$apt_dir"/sources.list.d/*.sources; do [ -f "$f" ] && files+=("$f"); done
[ ${#files[@]} -gt 0 ] || exit 0

# "URI SUITE" for every enabled deb entry, in file order.
entries() {
  local f
  for f in "${files[@]}"; do
    case "$f" in
      *.sources)
        awk '
          function flush() {
            if (types ~ /(^| )deb( |$)/ && tolower(enabled) != "no")
              for (i = 1; i <= nu; i++) for (j = 1; j <= ns; j++) print u[i], s[j]
            types = ""; enabled = ""; nu = 0; ns = 0
          }
          /^[ \t]*#/ { next }
          /^[ \t]*$/ { flush(); next }
          {
            key = tolower($1); sub(/:$/, "", key); $1 = ""; sub(/^ +/, "")
            if (key == "types") types = $0
            else if (key == "enabled") enabled = $0
            else if (key == "uris") nu = split($0, u, /[ \t]+/)
            else if (key == "suites") ns = split($0, s, /[ \t]+/)
          }
          END { flush() }' "$f"
        ;;
      *)
        # deb [options] URI SUITE COMPONENT…
        awk '$1 == "deb" { i = 2; if ($2 ~ /^\[/) { while (i <= NF && $i !~ /\]$/) i++; i++ } if (i + 1 <= NF) print $i, $(i + 1) }' "$f"
        ;;
    esac
  done
}

entries | awk '
  $2 ~ /-security$/ { if (!sec) { sec = $1; print "security", $1 } next }
  { if (!arc) { arc = $1; print "archive", $1 } }'
