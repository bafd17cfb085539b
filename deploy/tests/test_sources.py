"""No package registry's or mirror's host name is written in the project (issue 32): scripts, docs and
configuration take them from the machine (apt sources, `npm config get registry`, pip's index) or from
a setting. Run by `npm test` with the other deployment checks; offline.

- deploy/image/apt-sources.sh reads a machine's apt sources in both formats (what build.sh builds from);
- no tracked file holds the host of a public package registry or mirror, nor a host this machine's
  apt, npm or pip is configured with.
"""

from __future__ import annotations

import hashlib
import os
import re
import subprocess
from pathlib import Path
from urllib.parse import urlparse

ROOT = Path(__file__).resolve().parents[2]
APT_SOURCES = ROOT / "deploy" / "image" / "apt-sources.sh"

# Public package registries and mirrors, named by the first 16 hex digits of the SHA-256 of their host
# name, so that this file does not write them either.
REGISTRY_HOST_HASHES = {
    # npm
    "0dc11026ac75c015", "fd0c6a9279196963", "8743857e3ea00fd1", "3ca29e55be4befa4", "70bb4000cd2fab03", "87d14f070cb96869",
    "386c042daaf7f1eb",
    # PyPI
    "a4aa2ac280bb8d1a", "d6d7019ca9fcbf07", "c899567ee9068517", "8b5bb5eb9d758455",
    # Debian, Ubuntu, Alpine
    "e680c440a2e92079", "1ba4e37997a2e986", "c2b35955576ffa71", "2e97613f5a81eaa4", "4b602daf23ba2974", "26b795f2a123f2a2",
    "04280276b5029dca", "a0f007d863a0ed19", "e514b0d3b0562f54", "62f256676f138898", "8454fabc8b630901",
    # container registries
    "3530c4415dd857fb", "dcb6cc3991f9799e", "5e9dacd3577946a2", "e83cc4bcd94e4ed5", "0fd460f0568e29c1", "271dacc9f4d0caf8",
    "bd048f6f965d0e9c", "70cca582c4895337", "d7d68c249de34389", "0206ab7f1f15f8fb",
    # other languages
    "f65219c547f9c032", "7117c828d2afa4e2", "fcb9af86680af88f", "789e46d79514e280", "eb7e11c7f9ecbcf4", "3d01f3609be82d98",
    "00a7dc5a0cc38858", "9da5f32d96412512", "71741fe2460a6150", "43c04ed1dabe979b", "317d2d52829b7812", "2c77714df232b07f",
    "4189e62695dc2b69", "ba1e8c503762fce3", "f4114950ec7b2c33", "8400b8bd0d6e064d", "ed81f666b1c47b21", "4db460c55b85212e",
    "15bdb44dafa6843b", "4a8b734fb5be77bc",
}

HOST = re.compile(r"[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)+")


def apt_sources(apt_dir: Path) -> list[list[str]]:
    out = subprocess.run(["bash", str(APT_SOURCES), str(apt_dir)], capture_output=True, text=True, check=True).stdout
    return [line.split() for line in out.splitlines()]


def test_apt_sources_reads_both_formats(tmp_path: Path) -> None:
    (tmp_path / "sources.list.d").mkdir()
    (tmp_path / "sources.list").write_text(
        "# deb http://commented.test/debian trixie main\n"
        "deb-src http://source.test/debian trixie main\n"
        "deb [arch=amd64 signed-by=/k.gpg] http://one-line.test/debian bookworm main\n"
    )
    (tmp_path / "sources.list.d" / "debian.sources").write_text(
        "Types: deb\nURIs: http://off.test/debian\nSuites: trixie\nComponents: main\nEnabled: no\n\n"
        "Types: deb deb-src\n# a comment\nURIs: http://deb822.test/debian-security\nSuites: trixie-security\nComponents: main\n"
    )
    assert apt_sources(tmp_path) == [["archive", "http://one-line.test/debian"], ["security", "http://deb822.test/debian-security"]]


def test_apt_sources_deb822_only_and_nothing(tmp_path: Path) -> None:
    (tmp_path / "sources.list.d").mkdir()
    (tmp_path / "sources.list.d" / "x.sources").write_text(
        "Types: deb\nURIs: https://a.test/debian https://b.test/debian\nSuites: trixie trixie-updates trixie-security\nComponents: main\n"
    )
    assert apt_sources(tmp_path) == [["archive", "https://a.test/debian"], ["security", "https://a.test/debian"]]
    assert apt_sources(tmp_path / "nowhere") == []


def machine_hosts() -> set[str]:
    """Hosts this machine installs packages from: its apt sources, its npm registry, its pip index."""
    urls = [uri for _, uri in apt_sources(Path("/etc/apt"))]
    npm = subprocess.run(["npm", "config", "get", "registry"], capture_output=True, text=True)
    urls.append(npm.stdout.strip())
    pip = subprocess.run(["python3", "-m", "pip", "config", "list"], capture_output=True, text=True)
    urls += re.findall(r"index-url\s*=\s*'?([^'\s]+)", pip.stdout)
    urls += [os.environ.get(name, "") for name in ("PIP_INDEX_URL", "PIP_EXTRA_INDEX_URL", "UV_INDEX_URL", "npm_config_registry")]
    hosts = {urlparse(u).hostname for u in urls if u}
    return {h.lower() for h in hosts if h and h not in ("localhost", "127.0.0.1")}


def tracked_files() -> list[Path]:
    try:
        names = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout.split(b"\0")
        return [ROOT / n.decode() for n in names if n]
    except (OSError, subprocess.CalledProcessError):
        return [p for p in ROOT.rglob("*") if p.is_file() and not any(part in (".git", "node_modules", ".cache") for part in p.parts)]


def is_registry(host: str, machine: set[str]) -> bool:
    return host in machine or hashlib.sha256(host.encode()).hexdigest()[:16] in REGISTRY_HOST_HASHES


def test_no_registry_or_mirror_host_in_any_file() -> None:
    machine = machine_hosts()
    found = []
    for path in tracked_files():
        if not path.is_file():
            continue
        data = path.read_bytes()
        if b"\0" in data[:8192]:
            continue  # binary (ONNX graphs, images)
        for host in set(HOST.findall(data.decode("utf-8", "replace").lower())):
            if is_registry(host, machine):
                found.append(f"{path.relative_to(ROOT)}: a registry or mirror host ({len(host)} characters)")
    assert found == []


def test_the_check_finds_a_registry_host() -> None:
    # negative control: a host from the list, rebuilt here from its parts so it is written nowhere whole
    host = ".".join(["registry", "npmjs", "org"])
    assert is_registry(host, set()) and HOST.findall(f"see https://{host}/pkg") == [host]
    assert not is_registry("example.com", set())
