#!/usr/bin/env bash
# Runs deploy/compose.yaml on this machine, where no image registry is reachable, with podman:
# builds the service image (deploy/image/build.sh) and, from the same Debian base, the load balancer
# and stand-ins for the postgres and redis images; serves podman's Docker-compatible API on a socket;
# and runs Debian's docker-compose against it. docs/deploy.md, "Compose".
#
# Usage: POSTGRES_PASSWORD=… STRUCTQA_ADMIN_TOKEN=… deploy/local/compose.sh up -d
#        deploy/local/compose.sh ps | logs | down -v     (any docker-compose arguments)
set -euo pipefail
cd "$(dirname "$0")/../.."
# shellcheck source=deploy/image/podman-env.sh
source deploy/image/podman-env.sh
command -v docker-compose >/dev/null ||
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends docker-compose >/dev/null)
# Container names on the compose network resolve through CNI's dnsname plugin.
[ -e /usr/lib/cni/dnsname ] ||
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq golang-github-containernetworking-plugin-dnsname >/dev/null)

podman image exists localhost/structqa:local || deploy/image/build.sh
build() { # build IMAGE CONTAINERFILE, once
  podman image exists "$1" || podman build --format docker --network host -f "$2" -t "$1" .
}
build localhost/structqa-haproxy:local deploy/haproxy/Containerfile
build localhost/structqa-postgres:local deploy/local/postgres.Containerfile
build localhost/structqa-redis:local deploy/local/redis.Containerfile

SOCK=${PODMAN_SOCKET:-/run/structqa-podman.sock}
if ! curl -sf --unix-socket "$SOCK" http://d/_ping >/dev/null 2>&1; then
  rm -f "$SOCK"
  nohup podman system service --time=0 "unix://$SOCK" >/tmp/structqa-podman-service.log 2>&1 &
  for _ in $(seq 50); do curl -sf --unix-socket "$SOCK" http://d/_ping >/dev/null 2>&1 && break; sleep 0.2; done
fi
# podman runs health checks from systemd timers; with no systemd (these machines) nothing runs them
# and `depends_on: condition: service_healthy` would wait forever: health-ticker.sh runs them.
if ! pgrep -f deploy/local/health-ticker.sh >/dev/null; then
  nohup deploy/local/health-ticker.sh >/dev/null 2>&1 &
fi
export DOCKER_HOST="unix://$SOCK"
export POSTGRES_IMAGE=${POSTGRES_IMAGE:-localhost/structqa-postgres:local}
export REDIS_IMAGE=${REDIS_IMAGE:-localhost/structqa-redis:local}
exec docker-compose -p structqa -f deploy/compose.yaml "$@"
