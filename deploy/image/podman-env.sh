# Sourced by the image scripts: installs podman, runc and debootstrap from Debian when missing, and
# points podman at deploy/image/containers.conf. On these machines crun cannot run a container
# (`setrlimit RLIMIT_NOFILE: Operation not permitted`, then `cgroups in hybrid mode not supported`);
# runc with the cgroupfs manager, no default ulimits and no pids limit can (docs/deploy.md).
if ! command -v podman >/dev/null || ! command -v runc >/dev/null || ! command -v debootstrap >/dev/null; then
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq podman runc debootstrap >/dev/null) ||
    { echo "could not install podman, runc and debootstrap (apt-get)"; exit 1; }
fi
CONTAINERS_CONF="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/containers.conf"
export CONTAINERS_CONF
