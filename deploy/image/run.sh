#!/usr/bin/env bash
# Runs the image built by deploy/image/build.sh, as a container of this machine (docs/deploy.md):
# read-only root file system, the data folder on a named volume, signals to node through tini.
#
# Usage: deploy/image/run.sh [TAG]   (default structqa:local); extra `podman run` flags in RUN_FLAGS.
# Env:   PORT (8080), NAME (structqa), STRUCTQA_* / DATABASE_URL / REDIS_URL are passed through.
# Stop:  podman stop NAME  (SIGTERM: in-flight calls finish, then node exits 0)
set -euo pipefail
cd "$(dirname "$0")/../.."
# shellcheck source=deploy/image/podman-env.sh
source deploy/image/podman-env.sh
TAG=${1:-structqa:local}
NAME=${NAME:-structqa}
PORT=${PORT:-8080}
ENVS=(-e "PORT=$PORT")
for v in $(compgen -e); do
  case "$v" in STRUCTQA_*|DATABASE_URL|REDIS_URL|LOG_LEVEL) ENVS+=(-e "$v") ;; esac
done
# Host networking: the sandboxes these scripts were written on cannot set up a bridge; elsewhere
# RUN_FLAGS="--network bridge -p 8080:8080" works as well.
# shellcheck disable=SC2086
exec podman run -d --name "$NAME" --read-only --read-only-tmpfs=false --network host \
  -v "$NAME-data:/var/lib/structqa" "${ENVS[@]}" ${RUN_FLAGS:-} "$TAG"
