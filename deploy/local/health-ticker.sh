#!/usr/bin/env bash
# What podman's systemd timers do elsewhere: run the health check of every container of the Compose
# project "structqa" every 5 s. Exits after a minute with no such container (compose.sh starts it).
set -u
idle=0
while [ "$idle" -lt 12 ]; do
  sleep 5
  ids=$(podman ps -q --filter label=com.docker.compose.project=structqa)
  if [ -z "$ids" ]; then idle=$((idle + 1)); continue; fi
  idle=0
  for id in $ids; do podman healthcheck run "$id" >/dev/null 2>&1 || true; done
done
