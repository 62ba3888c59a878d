"""Offline checks of the Kubernetes manifests in deploy/kubernetes/.

What they prove: every object kustomization.yaml renders is valid for Kubernetes K8S_VERSION
(strict OpenAPI schemas from the `kubernetes-validate` package: unknown fields are errors), the
two custom resources have the structure their operators expect, and the manifests agree with
each other and with the server (ports, probe targets, settings, metric names, grace periods,
labels and selectors). What they cannot prove: that a cluster runs them; tests/kubernetes/run.sh
runs the Deployment, ConfigMap and Secret under `podman kube play` (docs/kubernetes.md).

The kustomization is rendered here in Python (resources + namespace + image tags, the only
features it uses); when `kubectl` is installed, its own `kubectl kustomize` must agree.
"""

from __future__ import annotations

import copy
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

yaml = pytest.importorskip("yaml")
kubernetes_validate = pytest.importorskip("kubernetes_validate")

ROOT = Path(__file__).resolve().parents[1]
MANIFESTS = ROOT / "deploy" / "kubernetes"
K8S_VERSION = "1.32"  # the Kubernetes version the manifests are validated for
CLUSTER_SCOPED = {"Namespace"}
NOT_IN_KUSTOMIZATION = {"secret.example.yaml"}  # created by hand, with a real token
CRD_KINDS = {"ServiceMonitor"}


def _docs(path: Path) -> list[dict]:
    return [d for d in yaml.safe_load_all(path.read_text()) if d]


def _kustomization() -> dict:
    return yaml.safe_load((MANIFESTS / "kustomization.yaml").read_text())


def _render() -> list[dict]:
    """What `kubectl kustomize deploy/kubernetes` prints, for the features the file uses."""
    k = _kustomization()
    assert set(k) <= {"apiVersion", "kind", "namespace", "resources", "images"}, "renderer knows these only"
    tags = {i["name"]: i for i in k.get("images", [])}
    out = []
    for name in k["resources"]:
        for doc in _docs(MANIFESTS / name):
            if doc["kind"] not in CLUSTER_SCOPED:
                doc["metadata"]["namespace"] = k["namespace"]
            pod = _pod_spec(doc) if doc["kind"] == "Deployment" else {}
            for c in pod.get("containers", []) + pod.get("initContainers", []):
                image = tags.get(c["image"].split(":")[0])
                if image:
                    c["image"] = f"{image.get('newName', c['image'].split(':')[0])}:{image['newTag']}"
            out.append(doc)
    return out


def _pod_spec(deployment: dict) -> dict:
    return deployment["spec"]["template"]["spec"]


@pytest.fixture(scope="module")
def objects() -> list[dict]:
    return _render()


@pytest.fixture(scope="module")
def by_kind(objects) -> dict:
    index: dict = {}
    for o in objects:
        index.setdefault(o["kind"], {})[o["metadata"]["name"]] = o
    return index


def _container(by_kind, deployment: str) -> dict:
    (container,) = _pod_spec(by_kind["Deployment"][deployment])["containers"]
    return container


def _matches(selector: dict, labels: dict) -> bool:
    assert set(selector) <= {"matchLabels"}, "only matchLabels selectors are used"
    return all(labels.get(k) == v for k, v in selector["matchLabels"].items())


def _pods_selected(by_kind, match_labels: dict) -> list[str]:
    return [
        name
        for name, d in by_kind["Deployment"].items()
        if all(d["spec"]["template"]["metadata"]["labels"].get(k) == v for k, v in match_labels.items())
    ]


# --- the files -----------------------------------------------------------------------------


def test_kustomization_lists_every_manifest():
    listed = set(_kustomization()["resources"])
    on_disk = {p.name for p in MANIFESTS.glob("*.yaml")} - {"kustomization.yaml"}
    assert listed == on_disk - NOT_IN_KUSTOMIZATION
    assert all((MANIFESTS / name).is_file() for name in listed)


@pytest.mark.skipif(shutil.which("kubectl") is None, reason="kubectl is not installed")
def test_render_agrees_with_kubectl_kustomize(objects):
    result = subprocess.run(["kubectl", "kustomize", str(MANIFESTS)], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    key = lambda o: (o["kind"], o["metadata"]["name"])  # noqa: E731
    assert sorted(yaml.safe_load_all(result.stdout), key=key) == sorted(objects, key=key)


def _core_objects():
    docs = _render() + _docs(MANIFESTS / "secret.example.yaml")
    return [pytest.param(d, id=f"{d['kind']}/{d['metadata']['name']}") for d in docs if d["kind"] not in CRD_KINDS]


@pytest.mark.parametrize("obj", _core_objects())
def test_valid_against_the_kubernetes_schema(obj):
    assert kubernetes_validate.validate(obj, K8S_VERSION, strict=True) == K8S_VERSION


def test_strict_schema_rejects_a_misspelt_field(by_kind):
    """The validation above can fail: one typo in the Deployment is caught."""
    broken = copy.deepcopy(by_kind["Deployment"]["traductor"])
    _pod_spec(broken)["containers"][0]["readinesProbe"] = _pod_spec(broken)["containers"][0].pop("readinessProbe")
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(broken, K8S_VERSION, strict=True)


def test_every_object_is_in_the_namespace_with_restricted_pod_security(objects, by_kind):
    namespace = by_kind["Namespace"]["traductor"]
    assert namespace["metadata"]["labels"]["pod-security.kubernetes.io/enforce"] == "restricted"
    assert all(o["metadata"].get("namespace") == "traductor" for o in objects if o["kind"] != "Namespace")


# --- the translator Deployment against the server -------------------------------------------


def _config(by_kind) -> dict:
    return by_kind["ConfigMap"]["traductor-config"]["data"]


def test_configmap_holds_real_settings_only(by_kind):
    from dataclasses import fields

    from traductor.service.settings import Settings

    known = {"TRADUCTOR_" + f.name.upper() for f in fields(Settings)}
    assert set(_config(by_kind)) <= known
    env = {e["name"] for e in _container(by_kind, "traductor")["env"]}
    assert env <= known and "TRADUCTOR_TOKEN" in env


def test_ports_match_the_settings(by_kind):
    ports = {p["name"]: p["containerPort"] for p in _container(by_kind, "traductor")["ports"]}
    assert ports == {
        "grpc": int(_config(by_kind)["TRADUCTOR_PORT"]),
        "metrics": int(_config(by_kind)["TRADUCTOR_METRICS_PORT"]),
        "http-api": int(_config(by_kind)["TRADUCTOR_HTTP_PORT"]),
    }


def test_the_server_reads_the_ports_the_deployment_names(by_kind):
    """`traductor serve` given the ConfigMap as its environment (envFrom, no flags) listens
    where the container ports say; the HTTP API is on (http_port 0 would turn it off)."""
    import argparse

    from traductor.service.settings import Settings

    parser = argparse.ArgumentParser()
    Settings.add_arguments(parser)
    settings = Settings.from_args(parser.parse_args([]), environ=dict(_config(by_kind)))
    ports = {p["name"]: p["containerPort"] for p in _container(by_kind, "traductor")["ports"]}
    assert settings.http_port > 0, "the LibreTranslate-compatible HTTP API is off"
    assert (settings.port, settings.metrics_port, settings.http_port) == (
        ports["grpc"],
        ports["metrics"],
        ports["http-api"],
    )


def test_probes_are_grpc_health_checks_on_the_serving_port(by_kind):
    from traductor_client.v1 import translator_pb2

    translator = translator_pb2.DESCRIPTOR.services_by_name["Translator"].full_name  # health knows "" and it
    container = _container(by_kind, "traductor")
    grpc_port = next(p["containerPort"] for p in container["ports"] if p["name"] == "grpc")
    for name in ("startupProbe", "readinessProbe", "livenessProbe"):
        probe = container[name]
        assert set(probe) & {"grpc", "exec", "httpGet", "tcpSocket"} == {"grpc"}, name
        assert probe["grpc"]["port"] == grpc_port, name
        assert probe["grpc"].get("service", "") in ("", translator), name
    assert container["readinessProbe"]["grpc"]["service"] == translator
    # the server answers health without a token (AuthInterceptor guards this prefix only)
    from traductor.service.interceptors import SERVICE_PREFIX

    assert SERVICE_PREFIX == f"/{translator}/"


def _prestop_seconds(container: dict) -> float:
    hook = container["lifecycle"]["preStop"]
    if "sleep" in hook:
        return float(hook["sleep"]["seconds"])
    command = hook["exec"]["command"]
    assert command[0] == "sleep" and len(command) == 2, command
    return float(command[1])


def test_grace_period_covers_prestop_and_drain(by_kind):
    spec = _pod_spec(by_kind["Deployment"]["traductor"])
    container = _container(by_kind, "traductor")
    drain = float(_config(by_kind)["TRADUCTOR_DRAIN_SECONDS"])
    from traductor.service.settings import Settings

    # the server's own pre-stop window comes after the preStop hook (default if the ConfigMap omits it)
    window = float(_config(by_kind).get("TRADUCTOR_PRESTOP_SECONDS", Settings.prestop_seconds))
    server_stop = 0.5  # margin: Service.drain() stops the engine and the HTTP API after the drain
    assert spec["terminationGracePeriodSeconds"] > _prestop_seconds(container) + window + drain + server_stop
    # liveness must not kill a pod that is draining (health says NOT_SERVING meanwhile)
    live = container["livenessProbe"]
    assert live["periodSeconds"] * live["failureThreshold"] > drain
    assert _prestop_seconds(container) >= 5, "long enough for DNS and the balancer to drop the pod"


def test_resources_match_the_onnx_runtime_threads(by_kind):
    resources = _container(by_kind, "traductor")["resources"]
    assert resources["requests"] == resources["limits"], "Guaranteed QoS"
    assert str(resources["limits"]["cpu"]) == _config(by_kind)["TRADUCTOR_THREADS"]


@pytest.mark.parametrize("deployment", ["traductor", "traductor-lb", "traductor-redis"])
def test_pods_are_locked_down(by_kind, deployment):
    spec = _pod_spec(by_kind["Deployment"][deployment])
    pod = spec["securityContext"]
    assert pod["runAsNonRoot"] is True and pod["runAsUser"] > 0
    assert pod["seccompProfile"] == {"type": "RuntimeDefault"}
    assert spec["automountServiceAccountToken"] is False
    container = spec["containers"][0]
    sc = container["securityContext"]
    assert sc["allowPrivilegeEscalation"] is False and sc["readOnlyRootFilesystem"] is True
    assert sc["capabilities"]["drop"] == ["ALL"]
    volumes = {v["name"]: v for v in spec["volumes"]}
    tmp = next(m for m in container["volumeMounts"] if m["mountPath"] == "/tmp")
    assert "emptyDir" in volumes[tmp["name"]], "the one writable path is an emptyDir"


def test_the_image_user_is_the_pod_user(by_kind):
    user = re.search(r"^USER (\d+):(\d+)", (ROOT / "Dockerfile").read_text(), re.M)
    assert user, "a numeric USER, so that runAsNonRoot can check it"
    pod = _pod_spec(by_kind["Deployment"]["traductor"])["securityContext"]
    assert (pod["runAsUser"], pod["runAsGroup"]) == (int(user[1]), int(user[2]))


def test_secrets_referenced_exist_in_the_example(by_kind):
    example = {d["metadata"]["name"]: d for d in _docs(MANIFESTS / "secret.example.yaml")}
    (token,) = [
        e["valueFrom"]["secretKeyRef"]
        for e in _container(by_kind, "traductor")["env"]
        if e["name"] == "TRADUCTOR_TOKEN"
    ]
    assert token["key"] in example[token["name"]]["stringData"]
    tls = next(v["secret"] for v in _pod_spec(by_kind["Deployment"]["traductor-lb"])["volumes"] if "secret" in v)
    assert example[tls["secretName"]]["type"] == "kubernetes.io/tls" and tls["optional"] is True


# --- labels, selectors and the objects that point at each other ---------------------------------


def test_deployment_selectors_match_their_pods(by_kind):
    for name, d in by_kind["Deployment"].items():
        assert _matches(d["spec"]["selector"], d["spec"]["template"]["metadata"]["labels"]), name


def test_services_select_one_deployment_and_name_its_ports(by_kind):
    expected = {
        "traductor-replicas": "traductor",
        "traductor-metrics": "traductor",
        "traductor": "traductor-lb",
        "traductor-redis": "traductor-redis",
    }
    for name, service in by_kind["Service"].items():
        assert _pods_selected(by_kind, service["spec"]["selector"]) == [expected[name]], name
        container_ports = {p["name"] for p in _container(by_kind, expected[name])["ports"]}
        assert {p["targetPort"] for p in service["spec"]["ports"]} <= container_ports, name
    assert by_kind["Service"]["traductor-replicas"]["spec"]["clusterIP"] == "None", "headless: one record per pod"


def test_disruption_budgets_and_network_policies_select_pods(by_kind):
    for kind in ("PodDisruptionBudget", "NetworkPolicy"):
        for name, obj in by_kind[kind].items():
            selector = obj["spec"]["selector" if kind == "PodDisruptionBudget" else "podSelector"]
            assert _pods_selected(by_kind, selector["matchLabels"]) == [name], f"{kind}/{name}"


def test_network_policy_admits_the_balancer_and_prometheus_only(by_kind):
    rules = by_kind["NetworkPolicy"]["traductor"]["spec"]["ingress"]
    assert by_kind["NetworkPolicy"]["traductor"]["spec"]["policyTypes"] == ["Ingress"]
    by_port = {}
    for rule in rules:
        for port in rule["ports"]:
            by_port.setdefault(port["port"], []).extend(rule["from"])
    assert set(by_port) == {"grpc", "http-api", "metrics"}
    for port in ("grpc", "http-api"):  # the HTTP API is admitted exactly where gRPC is
        (balancer,) = by_port[port]
        assert set(balancer) == {"podSelector"}, port  # same namespace only
        assert _pods_selected(by_kind, balancer["podSelector"]["matchLabels"]) == ["traductor-lb"], port
    # the front door: both protocols from anywhere
    (front,) = by_kind["NetworkPolicy"]["traductor-lb"]["spec"]["ingress"]
    assert "from" not in front
    assert {p["port"] for p in front["ports"]} == {"grpc", "http-api"}
    (prometheus,) = by_port["metrics"]
    assert set(prometheus) == {"namespaceSelector", "podSelector"}  # both must match (one element)


def test_balancer_resolves_the_headless_service(by_kind):
    env = {e["name"]: e.get("value") for e in _container(by_kind, "traductor-lb")["env"]}
    service = by_kind["Service"][env["UPSTREAM_HOST"]]
    assert service["spec"]["clusterIP"] == "None"
    assert int(env["UPSTREAM_PORT"]) in {p["port"] for p in service["spec"]["ports"]}
    mounts = {m["mountPath"] for m in _container(by_kind, "traductor-lb")["volumeMounts"]}
    assert {str(Path(env["TLS_CERT"]).parent), str(Path(env["TLS_KEY"]).parent)} <= mounts
    entrypoint = (ROOT / "deploy" / "lb" / "entrypoint.sh").read_text()
    assert all(name in entrypoint for name in ("UPSTREAM_HOST", "UPSTREAM_PORT", "TLS_CERT", "TLS_KEY"))


def _service_port(service: dict, target: str) -> int:
    (port,) = [p["port"] for p in service["spec"]["ports"] if p["targetPort"] == target]
    return port


def _nginx_http_api_port() -> int:
    """The port of deploy/lb's nginx server block that proxies to the translators' HTTP API."""
    template = (ROOT / "deploy" / "lb" / "nginx.conf.template").read_text()
    (block,) = [b for b in template.split("server {")[1:] if "proxy_pass http://translator_http" in b]
    return int(re.search(r"^\s*listen (\d+);", block, re.M)[1])


def test_http_api_is_served_through_the_balancer(by_kind):
    """The LibreTranslate-compatible HTTP API, end to end in the manifests: the translators
    listen on TRADUCTOR_HTTP_PORT (the same value as docker-compose.yml), the headless Service
    names it, the balancer proxies its own port to it (nginx's HTTP server block, fed by
    UPSTREAM_HTTP_PORT), and the Service clients use exposes that port."""
    http_port = int(_config(by_kind)["TRADUCTOR_HTTP_PORT"])
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    assert int(compose["services"]["translator"]["environment"]["TRADUCTOR_HTTP_PORT"]) == http_port
    translator = {p["name"]: p["containerPort"] for p in _container(by_kind, "traductor")["ports"]}
    assert translator["http-api"] == http_port
    assert _service_port(by_kind["Service"]["traductor-replicas"], "http-api") == http_port
    balancer = _container(by_kind, "traductor-lb")
    env = {e["name"]: e.get("value") for e in balancer["env"]}
    assert int(env["UPSTREAM_HTTP_PORT"]) == http_port
    assert "UPSTREAM_HTTP_PORT" in (ROOT / "deploy" / "lb" / "entrypoint.sh").read_text()
    lb_ports = {p["name"]: p["containerPort"] for p in balancer["ports"]}
    assert lb_ports["http-api"] == _nginx_http_api_port()
    front = by_kind["Service"]["traductor"]
    assert _service_port(front, "http-api") == http_port, "clients use the port compose publishes"
    (spec,) = [p for p in front["spec"]["ports"] if p["targetPort"] == "http-api"]
    assert spec["protocol"] == "TCP" and spec["appProtocol"] == "http"


def test_images_are_the_ones_kustomization_tags():
    names = {i["name"] for i in _kustomization()["images"]}
    used = {
        c["image"]
        for name in _kustomization()["resources"]
        for d in _docs(MANIFESTS / name)
        if d["kind"] == "Deployment"
        for c in _pod_spec(d)["containers"]
    }
    assert used == names


# --- the key store (keys per caller, docs/keys.md) ----------------------------------------------


def test_translators_share_the_redis_service_as_their_key_store(by_kind):
    """TRADUCTOR_KEYS_REDIS names the traductor-redis Service and its port, so every translator
    pod's settings give the one Redis store (limits, usage, revocations shared); the Secret's
    token stays the administrator's key."""
    import argparse
    from dataclasses import replace
    from urllib.parse import urlsplit

    from traductor.service.keys.redis_store import RedisKeyStore
    from traductor.service.keys.stores import gate_for
    from traductor.service.settings import Settings

    parser = argparse.ArgumentParser()
    Settings.add_arguments(parser)
    settings = Settings.from_args(parser.parse_args([]), environ=dict(_config(by_kind)) | {"TRADUCTOR_TOKEN": "t"})
    gate = gate_for(replace(settings, glossary_dir="/nonexistent"))
    assert isinstance(gate.store, RedisKeyStore) and gate.required and gate.token == "t"
    url = urlsplit(_config(by_kind)["TRADUCTOR_KEYS_REDIS"])
    assert url.scheme == "redis" and url.path == "/0"
    service = by_kind["Service"][url.hostname]
    assert _pods_selected(by_kind, service["spec"]["selector"]) == ["traductor-redis"]
    assert _service_port(service, "redis") == url.port
    assert "clusterIP" not in service["spec"], "a stable virtual IP: one Redis pod"


def test_redis_is_the_pinned_official_image_on_its_own_claim(by_kind):
    """One Redis pod of the official image at a pinned version, Guaranteed QoS, its append-only
    file on a ReadWriteOnce claim written by one pod at a time (Recreate), probes that ask Redis."""
    deployment = by_kind["Deployment"]["traductor-redis"]
    container = _container(by_kind, "traductor-redis")
    assert re.fullmatch(r"docker\.io/library/redis:\d+\.\d+\.\d+(-[a-z0-9.]+)?", container["image"])
    assert deployment["spec"]["replicas"] == 1 and deployment["spec"]["strategy"] == {"type": "Recreate"}
    args = container["args"]
    assert args[0] == "redis-server" and args[args.index("--appendonly") + 1] == "yes"
    assert args[args.index("--dir") + 1] == "/data"
    assert args[args.index("--maxmemory-policy") + 1] == "noeviction", "never drop a key or a count"
    resources = container["resources"]
    assert resources["requests"] == resources["limits"], "Guaranteed QoS"
    (port,) = container["ports"]
    assert (port["name"], port["containerPort"]) == ("redis", 6379)
    assert container["readinessProbe"]["exec"]["command"] == ["redis-cli", "ping"]
    assert container["livenessProbe"]["tcpSocket"]["port"] == "redis"
    spec = _pod_spec(deployment)
    (data,) = [m for m in container["volumeMounts"] if m["mountPath"] == "/data"]
    volume = {v["name"]: v for v in spec["volumes"]}[data["name"]]
    claim = by_kind["PersistentVolumeClaim"][volume["persistentVolumeClaim"]["claimName"]]
    assert claim["spec"]["accessModes"] == ["ReadWriteOnce"] and claim["spec"]["resources"]["requests"]["storage"]
    pod = spec["securityContext"]
    assert pod["runAsUser"] == pod["runAsGroup"] == pod["fsGroup"] == 999, "the image's redis user"


def test_only_the_translators_reach_redis(by_kind):
    policy = by_kind["NetworkPolicy"]["traductor-redis"]["spec"]
    assert policy["policyTypes"] == ["Ingress"]
    (rule,) = policy["ingress"]
    (source,) = rule["from"]
    assert set(source) == {"podSelector"}, "same namespace only"
    assert _pods_selected(by_kind, source["podSelector"]["matchLabels"]) == ["traductor"]
    assert rule["ports"] == [{"port": "redis", "protocol": "TCP"}]


# --- monitoring and autoscaling ---------------------------------------------------------------


def test_servicemonitor_structure_and_target(by_kind):
    (monitor,) = by_kind["ServiceMonitor"].values()
    assert monitor["apiVersion"] == "monitoring.coreos.com/v1"
    assert set(monitor["spec"]) <= {"selector", "endpoints", "namespaceSelector", "jobLabel"}
    services = by_kind["Service"].items()
    selected = [name for name, s in services if _matches(monitor["spec"]["selector"], s["metadata"]["labels"])]
    assert selected == ["traductor-metrics"]
    port_names = {p["name"] for p in by_kind["Service"]["traductor-metrics"]["spec"]["ports"]}
    for endpoint in monitor["spec"]["endpoints"]:
        assert set(endpoint) <= {"port", "path", "interval", "scrapeTimeout", "scheme"}
        assert endpoint["port"] in port_names and endpoint.get("path", "/metrics") == "/metrics"
        assert _seconds(endpoint["scrapeTimeout"]) <= _seconds(endpoint["interval"])


def _seconds(duration: str) -> float:
    match = re.fullmatch(r"(\d+)(s|m)", duration)
    assert match, f"a Prometheus duration like 15s: {duration!r}"
    return int(match[1]) * (60 if match[2] == "m" else 1)


def _adapter_rules() -> dict[str, dict]:
    """Custom metric name -> its prometheus-adapter rule."""
    config = yaml.safe_load((MANIFESTS / "prometheus-adapter" / "rules.yaml").read_text())
    return {rule["name"]["as"]: rule for rule in config["rules"]}


def test_adapter_rules_read_real_gauges_per_pod():
    from traductor.service.metrics import Metrics

    gauges = {m.name for m in Metrics().registry.collect() if m.type == "gauge"}
    for name, rule in _adapter_rules().items():
        series = re.match(r"(\w+)\{", rule["seriesQuery"])[1]
        assert series in gauges, name
        assert re.fullmatch(rule["name"]["matches"], series), name
        assert rule["resources"]["overrides"] == {"namespace": {"resource": "namespace"}, "pod": {"resource": "pod"}}
        for placeholder in ("<<.Series>>", "<<.LabelMatchers>>", "<<.GroupBy>>"):
            assert placeholder in rule["metricsQuery"], name


def test_hpa_scales_the_deployment_on_the_adapter_metrics(by_kind):
    (hpa,) = by_kind["HorizontalPodAutoscaler"].values()
    target = hpa["spec"]["scaleTargetRef"]
    assert (target["apiVersion"], target["kind"]) == ("apps/v1", "Deployment")
    assert target["name"] in by_kind["Deployment"] and target["name"] == "traductor"
    assert 2 <= hpa["spec"]["minReplicas"] <= hpa["spec"]["maxReplicas"]
    metrics = {m["pods"]["metric"]["name"]: m["pods"]["target"] for m in hpa["spec"]["metrics"]}
    assert all(m["type"] == "Pods" for m in hpa["spec"]["metrics"]), "load per pod, not CPU"
    assert set(metrics) <= set(_adapter_rules())
    rows = int(_config(by_kind)["TRADUCTOR_MAX_ACTIVE_SEQUENCES"])
    assert 0 < float(metrics["traductor_active_sequences_avg1m"]["averageValue"]) < rows
    assert float(metrics["traductor_queue_depth_avg1m"]["averageValue"]) > 0


# --- the probes against a running server ------------------------------------------------------


def test_probe_calls_are_answered_without_the_token(by_kind, tiny_bundle):
    """What the kubelet sends, against a server that requires a token: each probe's
    Health.Check (plaintext, no metadata) gets SERVING, while a Translate call without the
    token is refused UNAUTHENTICATED and one with it is served."""
    import grpc
    from grpc_health.v1 import health_pb2
    from server_harness import ServerThread, make_settings

    from traductor_client.v1 import translator_pb2 as pb

    container = _container(by_kind, "traductor")
    services = {
        container[name]["grpc"].get("service", "") for name in ("startupProbe", "readinessProbe", "livenessProbe")
    }
    server = ServerThread(make_settings(tiny_bundle, token="s3cret"))
    try:
        for service in sorted(services):
            assert server.health_status(service) == health_pb2.HealthCheckResponse.SERVING, service
        request = pb.TranslateRequest(text="uno dos tres")
        with pytest.raises(grpc.RpcError) as refused:
            server.stub.Translate(request, timeout=30)
        assert refused.value.code() == grpc.StatusCode.UNAUTHENTICATED
        assert server.stub.Translate(request, timeout=30, metadata=[("authorization", "Bearer s3cret")]).text
    finally:
        server.close()


def test_podman_adaptation_changes_only_what_it_prints(by_kind, tmp_path):
    """tests/kubernetes/run.sh plays the Deployments as written except for the changes
    podman_manifests.py lists: replicas, host ports, emptyDir names, the Secret volume."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "podman_manifests", ROOT / "tests" / "kubernetes" / "podman_manifests.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    cases = (("traductor", {"grpc": 1, "metrics": 2, "http-api": 3}), ("traductor-lb", {"grpc": 4, "http-api": 5}))
    for name, ports in cases:
        original = by_kind["Deployment"][name]
        played = module.for_podman(copy.deepcopy(original), ports, tmp_path)
        assert played["spec"]["replicas"] == 1
        (container,) = _pod_spec(played)["containers"]
        assert {p["name"]: (p["hostIP"], p["hostPort"]) for p in container["ports"]} == {
            n: ("127.0.0.1", port) for n, port in ports.items()
        }
        undo = copy.deepcopy(played)
        undo["spec"]["replicas"] = original["spec"]["replicas"]
        (c,) = _pod_spec(undo)["containers"]
        c["ports"] = _container(by_kind, name)["ports"]
        for volume, source in zip(_pod_spec(undo)["volumes"], _pod_spec(original)["volumes"], strict=True):
            volume.clear()
            volume.update(source)
        for container in [c] + _pod_spec(undo).get("initContainers", []):
            for mount in container["volumeMounts"]:
                mount["name"] = mount["name"].removeprefix(f"{name}-")
        assert undo == original, name


def test_the_translator_serves_the_repository_its_init_container_fills(by_kind, tmp_path):
    """TRADUCTOR_MODEL_REPOSITORY is the `models` volume: the init container writes it, the
    translator mounts it read-only there; the init container's command, run here into a folder,
    makes a repository the server accepts, with the ConfigMap's default model in it."""
    from dataclasses import replace

    from traductor.service.models import default_name, model_paths
    from traductor.service.settings import Settings

    config, spec = _config(by_kind), _pod_spec(by_kind["Deployment"]["traductor"])
    (init,) = spec["initContainers"]
    assert init["image"] == _container(by_kind, "traductor")["image"]
    assert init["securityContext"] == _container(by_kind, "traductor")["securityContext"]
    assert init["resources"] == _container(by_kind, "traductor")["resources"]  # Guaranteed QoS kept
    volumes = {v["name"]: v for v in spec["volumes"]}
    (written,) = [m for m in init["volumeMounts"] if m["mountPath"] == config["TRADUCTOR_MODEL_REPOSITORY"]]
    (read,) = [m for m in _container(by_kind, "traductor")["volumeMounts"] if m["name"] == written["name"]]
    assert "emptyDir" in volumes[written["name"]] and not written.get("readOnly")
    assert read["mountPath"] == config["TRADUCTOR_MODEL_REPOSITORY"] and read["readOnly"] is True
    command = init["command"][-1].replace(config["TRADUCTOR_MODEL_REPOSITORY"], str(tmp_path / "models"))
    subprocess.run([sys.executable, "-c", command], check=True, timeout=60)
    settings = replace(
        Settings(), model_repository=str(tmp_path / "models"), default_model=config["TRADUCTOR_DEFAULT_MODEL"]
    )
    names = list(model_paths(settings))
    assert config["TRADUCTOR_DEFAULT_MODEL"] in names and default_name(settings, names) == "en-es"


def test_the_podman_run_serves_a_repository_of_two_models(by_kind, tmp_path):
    """tests/kubernetes/run.sh's translator pod: its init container also copies en-es as en-es-b
    (podman_manifests.with_second_model); run here into a folder, the command makes a repository
    of the packaged models and a second one, the ConfigMap's default among them."""
    import importlib.util
    from dataclasses import replace

    from traductor.packaged import MODELS_DIR
    from traductor.service.models import default_name, model_paths
    from traductor.service.settings import Settings

    spec = importlib.util.spec_from_file_location(
        "podman_manifests", ROOT / "tests" / "kubernetes" / "podman_manifests.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    config = _config(by_kind)
    played = module.with_second_model(copy.deepcopy(by_kind["Deployment"]["traductor"]))
    (init,) = _pod_spec(played)["initContainers"]
    command = init["command"][-1].replace(config["TRADUCTOR_MODEL_REPOSITORY"], str(tmp_path / "models"))
    subprocess.run([sys.executable, "-c", command], check=True, timeout=60)
    settings = replace(
        Settings(), model_repository=str(tmp_path / "models"), default_model=config["TRADUCTOR_DEFAULT_MODEL"]
    )
    names = list(model_paths(settings))
    packaged = sorted(p.name for p in MODELS_DIR.iterdir() if (p / "config.json").is_file())
    assert names == sorted([*packaged, module.SECOND_MODEL]) and default_name(settings, names) == "en-es"
    # kept after it ran: Podman 4.3 loses the race removing a `once` init container
    assert played["metadata"]["annotations"]["io.podman.annotations.init.container.type"] == "always"
    # and not restarted by the pod's policy once it has exited 0 (Always re-ran it endlessly)
    assert _pod_spec(played)["restartPolicy"] == "OnFailure"


def test_every_translator_pod_shares_the_glossary_claim(by_kind):
    """Glossaries go to TRADUCTOR_GLOSSARY_DIR: one ReadWriteMany claim mounted writable there by
    every pod of the Deployment (a claim, not a per-pod volume: what one pod stores, all read, and
    it outlives them), outside the read-only model repository, writable through the pod's fsGroup."""
    from dataclasses import replace

    from traductor.service.glossaries import default_dir
    from traductor.service.settings import Settings

    config, spec = _config(by_kind), _pod_spec(by_kind["Deployment"]["traductor"])
    path, repository = config["TRADUCTOR_GLOSSARY_DIR"], config["TRADUCTOR_MODEL_REPOSITORY"]
    assert not path.startswith(repository.rstrip("/") + "/"), "the model repository is mounted read-only"
    settings = replace(Settings(), model_repository=repository)
    assert default_dir(settings) == Path(repository) / "glossaries", "without the setting: read-only, 500"
    assert default_dir(replace(settings, glossary_dir=path)) == Path(path)
    (mount,) = [m for m in _container(by_kind, "traductor")["volumeMounts"] if m["mountPath"] == path]
    assert not mount.get("readOnly")
    volume = {v["name"]: v for v in spec["volumes"]}[mount["name"]]
    claim = by_kind["PersistentVolumeClaim"][volume["persistentVolumeClaim"]["claimName"]]
    assert claim["spec"]["accessModes"] == ["ReadWriteMany"], "pods on several nodes write it"
    assert claim["spec"]["resources"]["requests"]["storage"]
    assert claim["metadata"]["labels"]["app.kubernetes.io/part-of"] == "traductor"
    pod = spec["securityContext"]
    assert pod["fsGroup"] == pod["runAsGroup"] and pod["fsGroupChangePolicy"] == "OnRootMismatch"
    assert not [c for c in spec["initContainers"] if any(m["name"] == mount["name"] for m in c["volumeMounts"])]


def test_the_podman_run_plays_a_second_pod_on_the_same_claim(by_kind, tmp_path):
    """tests/kubernetes/run.sh plays the Deployment's second replica as traductor-b: its own host
    ports and emptyDir volumes, the same glossary claim as the first pod."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "podman_manifests", ROOT / "tests" / "kubernetes" / "podman_manifests.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    original = by_kind["Deployment"]["traductor"]
    first = module.for_podman(copy.deepcopy(original), {"grpc": 1, "metrics": 2, "http-api": 3}, tmp_path)
    second = module.second_translator(copy.deepcopy(original), {"grpc": 4, "metrics": 5, "http-api": 6}, tmp_path)
    assert second["metadata"]["name"] == "traductor-b"
    assert module.claims(second) == module.claims(first) == module.claims(original) == ["traductor-glossaries"]
    empty = lambda d: {v["name"] for v in _pod_spec(d)["volumes"] if "emptyDir" in v}  # noqa: E731
    assert empty(first) == {"traductor-tmp", "traductor-models"}
    assert empty(second) == {"traductor-b-tmp", "traductor-b-models"}
    assert [p["hostPort"] for p in _container({"Deployment": {"b": second}}, "b")["ports"]] == [4, 5, 6]


def test_the_podman_run_plays_the_key_store_the_translators_name(by_kind, tmp_path):
    """tests/kubernetes/run.sh plays traductor-redis (redis.yaml) with the locally built image and
    nothing else changed but its host port and emptyDir name; both translator pods resolve the
    host of the ConfigMap's TRADUCTOR_KEYS_REDIS (the Service) through hostAliases, whose address
    run.sh fills in; the key store's claim is played with the glossaries' claim."""
    import importlib.util
    from urllib.parse import urlsplit

    spec = importlib.util.spec_from_file_location(
        "podman_manifests", ROOT / "tests" / "kubernetes" / "podman_manifests.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    for name in ("cert", "key"):
        (tmp_path / name).write_text("test")
    ports = {"grpc": 1, "metrics": 2, "http-api": 3}
    lb_ports, cert, key = {"grpc": 4, "http-api": 5}, tmp_path / "cert", tmp_path / "key"
    module.main(tmp_path, ports, lb_ports, "t", cert, key, ports, {"redis": 9})
    (redis,) = yaml.safe_load_all((tmp_path / "redis.yaml").read_text())
    original, written = by_kind["Deployment"]["traductor-redis"], _container(by_kind, "traductor-redis")
    (container,) = _pod_spec(redis)["containers"]
    assert container["image"] == module.REDIS_IMAGE != written["image"]
    assert [(p["name"], p["hostIP"], p["hostPort"]) for p in container["ports"]] == [("redis", "127.0.0.1", 9)]
    undo = copy.deepcopy(redis)
    (c,) = _pod_spec(undo)["containers"]
    c["image"], c["ports"] = written["image"], written["ports"]
    for item in _pod_spec(undo)["volumes"] + c["volumeMounts"]:
        item["name"] = item["name"].removeprefix("traductor-redis-")
    for volume in _pod_spec(redis)["volumes"]:
        assert ("emptyDir" in volume) == volume["name"].startswith("traductor-redis-"), "only emptyDirs renamed"
    assert undo == original
    host = urlsplit(_config(by_kind)["TRADUCTOR_KEYS_REDIS"]).hostname
    assert host in by_kind["Service"]
    run = (ROOT / "tests" / "kubernetes" / "run.sh").read_text()
    for played in ("translator.yaml", "translator-b.yaml"):
        (deployment,) = [d for d in yaml.safe_load_all((tmp_path / played).read_text()) if d["kind"] == "Deployment"]
        assert _pod_spec(deployment)["hostAliases"] == [{"ip": module.REDIS_POD_IP, "hostnames": [host]}]
        config = [d for d in yaml.safe_load_all((tmp_path / played).read_text()) if d["kind"] == "ConfigMap"]
        assert all(c["data"]["TRADUCTOR_KEYS_REDIS"] == _config(by_kind)["TRADUCTOR_KEYS_REDIS"] for c in config)
    assert f"ip: {module.REDIS_POD_IP}|ip: $REDIS_IP|" in run, "run.sh fills the address in"
    # played first, on the fixed address the hostAliases name (a Service's IP does not change)
    played = 'kube play --ip "$REDIS_IP" --mac-address "$REDIS_MAC" "$WORK/redis.yaml"'
    assert run.index(played) < run.index('kube play "$WORK/translator.yaml"')
    claims = {c["metadata"]["name"] for c in yaml.safe_load_all((tmp_path / "glossaries.yaml").read_text())}
    assert claims == {"traductor-glossaries", "traductor-redis"}
    assert "traductor-redis" in (tmp_path / "volumes").read_text().split()
