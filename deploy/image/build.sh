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
# Usage: deploy/image/build.sh [TAG]        (default tag: structqa:local)
# Env:   DEBIAN_SUITE (trixie), DEBIAN_MIRROR (http://deb.debian.org/debian), IMAGE_WORK (.cache/image)
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$(pwd)
TAG=${1:-structqa:local}
SUITE=${DEBIAN_SUITE:-trixie}
MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
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
  echo "deb ${DEBIAN_SECURITY_MIRROR:-http://deb.debian.org/debian-security} $SUITE-security main" >>"$rootfs/etc/apt/sources.list"
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
# docker format: the OCI image format has no HEALTHCHECK (nor SHELL).
podman build --format docker --network host "${SECRET[@]}" -f Containerfile --build-arg "SUITE=$SUITE" -t "$TAG" .
podman image inspect "$TAG" --format '{{.Id}} {{.Size}} bytes'
