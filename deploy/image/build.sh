#!/usr/bin/env bash
# Builds the structqa container image on this machine with no pulled base image (docs/deploy.md).
#
# No registry of images is reachable here, so the base image is made from Debian's own packages:
# debootstrap lays a minimal Debian root file system (Debian 13 "trixie": its nodejs is Node 20) and
# `podman import` turns it into localhost/structqa-base:trixie. The Containerfile's stages install
# what each needs from Debian's archive with apt-get (the build stage: nodejs, npm, the node headers
# and a compiler for better-sqlite3; the runtime stage: nodejs and tini only). debootstrap alone
# cannot install npm: its resolver does not follow the alternatives npm's dependencies use.
#
# The Debian mirror is the one this machine's apt uses (deploy/image/apt-sources.sh reads
# /etc/apt/sources.list and sources.list.d/, both formats), or DEBIAN_MIRROR; the project names none.
#
# Usage: deploy/image/build.sh [TAG]        (default tag: structqa:local)
# Env:   DEBIAN_SUITE (trixie), DEBIAN_MIRROR and DEBIAN_SECURITY_MIRROR (default: this machine's apt
#        sources), NPM_REGISTRY (default: this machine's `npm config get registry`), IMAGE_WORK (.cache/image)
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$(pwd)
TAG=${1:-structqa:local}
SUITE=${DEBIAN_SUITE:-trixie}
SOURCES=$(deploy/image/apt-sources.sh)
MIRROR=${DEBIAN_MIRROR:-$(awk '$1 == "archive" { print $2 }' <<<"$SOURCES")}
SECURITY_MIRROR=${DEBIAN_SECURITY_MIRROR:-$(awk '$1 == "security" { print $2 }' <<<"$SOURCES")}
if [ -z "$MIRROR" ]; then
  echo "no Debian mirror: this machine's apt sources name none; set DEBIAN_MIRROR to one (an http(s) URI of a Debian archive)" >&2
  exit 2
fi
WORK=${IMAGE_WORK:-$ROOT/.cache/image}
mkdir -p "$WORK/debs"

# shellcheck source=deploy/image/podman-env.sh
source "$ROOT/deploy/image/podman-env.sh"

# The base image, unless it already exists.
BASE="localhost/structqa-base:$SUITE"
if podman image exists "$BASE"; then
  echo "== $BASE exists"
else
  rootfs="$WORK/rootfs"
  rm -rf "$rootfs"
  echo "== debootstrap $SUITE (minbase) from $MIRROR"
  debootstrap --variant=minbase --include=ca-certificates --cache-dir="$WORK/debs" \
    --keyring=/usr/share/keyrings/debian-archive-keyring.gpg "$SUITE" "$rootfs" "$MIRROR" >"$WORK/debootstrap.log"
  # Security and point-release updates too, for the stages' apt-get.
  echo "deb $MIRROR $SUITE-updates main" >>"$rootfs/etc/apt/sources.list"
  if [ -n "$SECURITY_MIRROR" ]; then echo "deb $SECURITY_MIRROR $SUITE-security main" >>"$rootfs/etc/apt/sources.list"
  else echo "== no security mirror in this machine's apt sources (DEBIAN_SECURITY_MIRROR): the image gets no $SUITE-security updates"; fi
  # What an image does not need: package lists, caches, docs.
  rm -rf "$rootfs"/var/lib/apt/lists/* "$rootfs"/var/cache/apt/*.bin "$rootfs"/usr/share/doc/* "$rootfs"/usr/share/man/*
  tar -C "$rootfs" --numeric-owner -c . | podman import --change 'CMD ["/bin/sh"]' - "$BASE"
  rm -rf "$rootfs"
fi

echo "== podman build $TAG"
# The host's CA bundle, for a registry reached through a TLS-inspecting proxy (NPM_CA_FILE= to skip).
CA=${NPM_CA_FILE-/etc/ssl/certs/ca-certificates.crt}
SECRET=()
if [ -n "$CA" ] && [ -f "$CA" ]; then SECRET=(--secret "id=npm_ca,src=$CA"); fi
# The npm registry this machine's npm uses (NPM_REGISTRY to choose another; empty: npm's default).
NPM_REGISTRY=${NPM_REGISTRY-$(npm config get registry 2>/dev/null || true)}
# docker format: the OCI image format has no HEALTHCHECK (nor SHELL).
podman build --format docker --network host "${SECRET[@]}" -f Containerfile --build-arg "SUITE=$SUITE" \
  --build-arg "NPM_REGISTRY=$NPM_REGISTRY" -t "$TAG" .
podman image inspect "$TAG" --format '{{.Id}} {{.Size}} bytes'
