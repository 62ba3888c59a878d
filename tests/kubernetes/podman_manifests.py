"""Turn the rendered deploy/kubernetes manifests into what `podman kube play` (4.3) can run.

    python3 tests/kubernetes/podman_manifests.py OUT_DIR GRPC_PORT METRICS_PORT HTTP_PORT LB_PORT LB_HTTP_PORT \
        TOKEN CERT KEY B_GRPC_PORT B_METRICS_PORT B_HTTP_PORT REDIS_PORT

(HTTP_PORT and LB_HTTP_PORT: the host ports for the translator's and the balancer's `http-api`,
the LibreTranslate-compatible HTTP API; B_*: those of the second translator pod; REDIS_PORT: the
host port of the Redis pod's, on 127.0.0.1.)

Writes OUT_DIR/glossaries.yaml (the PersistentVolumeClaim of the glossaries: kube play makes a
named volume of it), OUT_DIR/translator.yaml (ConfigMap, Deployment, headless Service),
OUT_DIR/translator-b.yaml (a second translator pod, see below), OUT_DIR/redis.yaml (the key
store, see below), OUT_DIR/balancer.yaml
(the balancer Deployment and its Service; its UPSTREAM_HOST is filled in by run.sh),
OUT_DIR/auth.json (the traductor-auth Secret's data as a podman secret) and OUT_DIR/volumes (the
named volumes the pods will use, for the teardown), and prints every change it made to the
objects, so the run's log says exactly what differed from a cluster:

- one replica per Deployment: kube play publishes every containerPort on the host, so a second
  replica's ports would collide;
- each containerPort gets hostIP 127.0.0.1 and a free hostPort (loopback only, no collisions);
- the Secret traductor-auth is handed over as a podman secret in JSON: podman 4.3 stores a
  played Secret in a form its own secretKeyRef lookup cannot read (containers/podman#16269);
- the TLS Secret volume becomes a hostPath folder with the same two files: podman 4.3 skips an
  optional Secret volume (containers/podman#16636), and for a required one writes the files
  still base64-encoded (seen here), which nginx cannot read;
- emptyDir volumes get the Deployment's name in theirs: kube play makes named volumes of them,
  which pods of both Deployments would otherwise share;
- the translator's init container `models` also copies the packaged en-es as SECOND_MODEL
  (en-es-b), so the pod serves a repository of two models (what an init container adding a model
  of your own does, docs/kubernetes.md); the ConfigMap's TRADUCTOR_DEFAULT_MODEL stays en-es;
- the pod annotation io.podman.annotations.init.container.type=always: Podman 4.3 removes a
  `once` init container (its default) right after it exits, and lost that race here ("failed
  to remove once init container ... as it is running", containers/podman#18477, fixed in 4.6);
  an `always` init container is kept (it would run again at a restart of the whole pod);
- with it, restartPolicy OnFailure instead of a Deployment's Always: Podman gives the init
  container the pod's restart policy too, and with Always restarted it as soon as it exited
  (hundreds of copies of the models in a run, the files rewritten under a server restarting
  after a kill); OnFailure leaves it exited and still restarts a killed server (exit 137);
- the second replica of the translator Deployment is played as a Deployment of its own,
  `traductor-b` (its own host ports and emptyDir names), since one Deployment here plays one
  pod: both pods mount the one glossary claim, as every replica of the Deployment does.

- the key store: Deployment traductor-redis goes to OUT_DIR/redis.yaml, played before the
  translators, with REDIS_IMAGE (default localhost/traductor-redis:bookworm, built from
  deploy/redis: Debian's redis-server, the official image being out of reach here) in place of
  the pinned official image, its port on 127.0.0.1 only; its claim traductor-redis is played
  with the glossaries' (a named volume, kept when the Redis pod is played again);
- podman has no Service DNS: both translator pods get a hostAliases entry naming
  traductor-redis (the host of the ConfigMap's TRADUCTOR_KEYS_REDIS, left unchanged) with the
  address REDIS_POD_IP, which run.sh replaces with the Redis pod's address once it is played.

Everything else (image, command, env, envFrom, probes, resources, securityContext, volumes) is
passed through unchanged. Objects podman does not know (Namespace, PodDisruptionBudget,
NetworkPolicy, HorizontalPodAutoscaler, ServiceMonitor) are left out.
"""

from __future__ import annotations

import base64
import copy
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
MANIFESTS = ROOT / "deploy" / "kubernetes"
SECOND_MODEL = os.environ.get("SECOND_MODEL", "en-es-b")
REDIS_IMAGE = os.environ.get("REDIS_IMAGE", "localhost/traductor-redis:bookworm")
REDIS_HOST = "traductor-redis"  # the Service TRADUCTOR_KEYS_REDIS names
REDIS_POD_IP = "REDIS_POD_IP"  # replaced by run.sh with the Redis pod's address


def render() -> list[dict]:
    """`kubectl kustomize` when installed, else the renderer tests/test_kubernetes.py checks."""
    if shutil.which("kubectl"):
        out = subprocess.run(["kubectl", "kustomize", str(MANIFESTS)], check=True, capture_output=True, text=True)
        print("rendered with kubectl kustomize")
        return [d for d in yaml.safe_load_all(out.stdout) if d]
    sys.path.insert(0, str(ROOT / "tests"))
    from test_kubernetes import _render

    print("rendered with the Python renderer of tests/test_kubernetes.py (no kubectl)")
    return _render()


def for_podman(deployment: dict, host_ports: dict[str, int], tls_dir: Path) -> dict:
    name = deployment["metadata"]["name"]
    if deployment["spec"]["replicas"] != 1:
        print(f"  Deployment/{name}: replicas {deployment['spec']['replicas']} -> 1")
        deployment["spec"]["replicas"] = 1
    for container in deployment["spec"]["template"]["spec"]["containers"]:
        for port in container["ports"]:
            if port["name"] in host_ports:
                port["hostIP"], port["hostPort"] = "127.0.0.1", host_ports[port["name"]]
                print(
                    f"  Deployment/{name}: port {port['name']} {port['containerPort']} -> 127.0.0.1:{port['hostPort']}"
                )
            else:
                print(f"  Deployment/{name}: port {port['name']} {port['containerPort']} dropped (not needed here)")
        container["ports"] = [p for p in container["ports"] if p["name"] in host_ports]
    for volume in deployment["spec"]["template"]["spec"]["volumes"]:
        if "emptyDir" in volume:  # kube play makes a named volume of it: one per Deployment here
            print(f"  Deployment/{name}: emptyDir volume {volume['name']} named {name}-{volume['name']}")
            _rename_volume(deployment, volume["name"], f"{name}-{volume['name']}")
        if "secret" in volume:
            print(f"  Deployment/{name}: secret volume {volume['name']} -> hostPath {tls_dir} (the same files)")
            volume.pop("secret")
            volume["hostPath"] = {"path": str(tls_dir), "type": "Directory"}
    return deployment


def with_second_model(deployment: dict) -> dict:
    """The init container `models` copies the packaged models, then the default one again as
    SECOND_MODEL: a repository of two models."""
    (init,) = [c for c in deployment["spec"]["template"]["spec"]["initContainers"] if c["name"] == "models"]
    assert init["command"][:2] == ["python3", "-c"], init["command"]
    init["command"][-1] += (
        "; from traductor.packaged import DEFAULT_MODEL; "
        f"shutil.copytree(MODELS_DIR / DEFAULT_MODEL, '/models/{SECOND_MODEL}', dirs_exist_ok=True)"
    )
    print(f"  Deployment/{deployment['metadata']['name']}: init container models also copies en-es as {SECOND_MODEL}")
    # Podman 4.3 reads a Deployment's pod annotations from the Deployment's own metadata
    annotations = deployment["metadata"].setdefault("annotations", {})
    annotations["io.podman.annotations.init.container.type"] = "always"
    print(
        f"  Deployment/{deployment['metadata']['name']}: init container type 'always' (Podman 4.3 fails to"
        " remove a 'once' one as it exits)"
    )
    # ... and Podman applies the pod's restart policy to that init container too: with Always it
    # ran its copy again every second or so (hundreds of times in a run), rewriting the model files
    # under a server that restarted meanwhile (seen: truncated encoder.onnx, then a hung start)
    deployment["spec"]["template"]["spec"]["restartPolicy"] = "OnFailure"
    print(
        f"  Deployment/{deployment['metadata']['name']}: restartPolicy Always -> OnFailure (Podman restarts an"
        " 'always' init container by the pod's policy: Always re-ran it endlessly; a killed server still restarts)"
    )
    return deployment


def second_translator(deployment: dict, host_ports: dict[str, int], tls_dir: Path) -> dict:
    """The translator Deployment's second replica as a Deployment of its own (`<name>-b`): its own
    host ports and emptyDirs, the same PersistentVolumeClaims (the glossaries)."""
    name = deployment["metadata"]["name"]
    deployment["metadata"]["name"] = f"{name}-b"
    print(f"  Deployment/{name}: its second replica played as Deployment/{name}-b (one pod per Deployment here)")
    return with_second_model(for_podman(deployment, host_ports, tls_dir))


def redis_for_podman(deployment: dict, host_ports: dict[str, int], tls_dir: Path) -> dict:
    """The key store's Deployment with the locally built image."""
    (container,) = deployment["spec"]["template"]["spec"]["containers"]
    print(f"  Deployment/{deployment['metadata']['name']}: image {container['image']} -> {REDIS_IMAGE}")
    container["image"] = REDIS_IMAGE
    return for_podman(deployment, host_ports, tls_dir)


def with_redis_alias(deployment: dict) -> dict:
    """No Service DNS under podman: the pod resolves the Redis Service's name through /etc/hosts."""
    spec = deployment["spec"]["template"]["spec"]
    spec.setdefault("hostAliases", []).append({"ip": REDIS_POD_IP, "hostnames": [REDIS_HOST]})
    print(
        f"  Deployment/{deployment['metadata']['name']}: hostAliases {REDIS_HOST} -> the Redis pod's address"
        " (no Service DNS here; the ConfigMap's TRADUCTOR_KEYS_REDIS unchanged)"
    )
    return deployment


def claims(deployment: dict) -> list[str]:
    return [
        v["persistentVolumeClaim"]["claimName"]
        for v in deployment["spec"]["template"]["spec"]["volumes"]
        if "persistentVolumeClaim" in v
    ]


def _rename_volume(deployment: dict, old: str, new: str) -> None:
    spec = deployment["spec"]["template"]["spec"]
    for volume in spec["volumes"]:
        volume["name"] = new if volume["name"] == old else volume["name"]
    for container in spec["containers"] + spec.get("initContainers", []):
        for mount in container.get("volumeMounts", []):
            mount["name"] = new if mount["name"] == old else mount["name"]


def main(
    out: Path,
    translator_ports: dict[str, int],
    lb_ports: dict[str, int],
    token: str,
    cert: Path,
    key: Path,
    b_ports: dict[str, int],
    redis_ports: dict[str, int],
) -> None:
    objects = {(o["kind"], o["metadata"]["name"]): o for o in render()}
    played = {"ConfigMap", "Deployment", "Service", "PersistentVolumeClaim"}
    skipped = sorted(f"{k}/{n}" for k, n in objects if k not in played)
    print("  left out (podman has no such kind): " + ", ".join(skipped))
    deployment = objects["Deployment", "traductor"]
    pristine = copy.deepcopy(deployment)
    translator = [
        objects["ConfigMap", "traductor-config"],
        with_redis_alias(with_second_model(for_podman(deployment, translator_ports, out / "tls"))),
        objects["Service", "traductor-replicas"],
        objects["Service", "traductor-metrics"],
    ]
    translator_b = [
        objects["ConfigMap", "traductor-config"],
        with_redis_alias(second_translator(pristine, b_ports, out / "tls")),
    ]
    redis = [redis_for_podman(objects["Deployment", "traductor-redis"], redis_ports, out / "tls")]
    pvcs = [o for (kind, _), o in objects.items() if kind == "PersistentVolumeClaim"]
    for claim in pvcs:
        print(
            f"  PersistentVolumeClaim/{claim['metadata']['name']}: played on its own (glossaries.yaml), before the"
            f" pods: a named volume, kept when a pod that mounts it is taken down and played again"
        )
    (out / "glossaries.yaml").write_text(yaml.safe_dump_all(pvcs, sort_keys=False))
    (out / "translator-b.yaml").write_text(yaml.safe_dump_all(translator_b, sort_keys=False))
    (out / "redis.yaml").write_text(yaml.safe_dump_all(redis, sort_keys=False))
    tls_dir = out / "tls"  # what the traductor-tls Secret would hold: tls.crt and tls.key
    tls_dir.mkdir(exist_ok=True)
    for name, source in (("tls.crt", cert), ("tls.key", key)):
        (tls_dir / name).write_bytes(source.read_bytes())
        (tls_dir / name).chmod(0o644)  # a throw-away test key, read by the balancer's uid
    balancer = [
        for_podman(objects["Deployment", "traductor-lb"], lb_ports, tls_dir),
        objects["Service", "traductor"],
    ]
    (out / "translator.yaml").write_text(yaml.safe_dump_all(translator, sort_keys=False))
    (out / "balancer.yaml").write_text(yaml.safe_dump_all(balancer, sort_keys=False))
    (out / "auth.json").write_text(json.dumps({"token": base64.b64encode(token.encode()).decode()}))
    volumes = sorted(
        {
            v.get("persistentVolumeClaim", {}).get("claimName") or v["name"]
            for d in (translator[1], translator_b[1], balancer[0], redis[0])
            for v in d["spec"]["template"]["spec"]["volumes"]
            if "emptyDir" in v or "persistentVolumeClaim" in v
        }
    )
    (out / "volumes").write_text("\n".join(volumes) + "\n")
    print("  Secret/traductor-auth: as a podman secret in JSON (what its secretKeyRef lookup reads)")


if __name__ == "__main__":
    a = sys.argv[1:]
    translator_ports = {"grpc": int(a[1]), "metrics": int(a[2]), "http-api": int(a[3])}
    lb_ports = {"grpc": int(a[4]), "http-api": int(a[5])}
    b_ports = {"grpc": int(a[9]), "metrics": int(a[10]), "http-api": int(a[11])}
    redis_ports = {"redis": int(a[12])}
    main(Path(a[0]), translator_ports, lb_ports, a[6], Path(a[7]), Path(a[8]), b_ports, redis_ports)
