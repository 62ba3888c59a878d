"""Offline checks of the GPU variant: the kustomize overlay deploy/kubernetes-gpu/ and Dockerfile.gpu.

The overlay is rendered here as kubectl would (the base as tests/test_kubernetes.py renders it, then
the overlay's image and its strategic-merge patch); the translator Deployment it gives must be valid
for Kubernetes K8S_VERSION (strict schemas), request one nvidia.com/gpu, run with
TRADUCTOR_DEVICE=cuda on the GPU image, keep the base's labels, probes and locked-down pods, and its
init container must lay out a model repository whose bundles the PyTorch runner finds weights in
(run here on the packaged models). When kubectl is installed, its own render must agree.
"""

from __future__ import annotations

import copy
import re
import shutil
import subprocess
import sys

import pytest

yaml = pytest.importorskip("yaml")
kubernetes_validate = pytest.importorskip("kubernetes_validate")

from test_kubernetes import K8S_VERSION, ROOT, _render  # noqa: E402

GPU = ROOT / "deploy" / "kubernetes-gpu"


def merge(base, patch):
    """A strategic-merge patch as kubectl applies these fields: maps merge, lists of named items
    merge by name, other lists and values are replaced."""
    if isinstance(base, dict) and isinstance(patch, dict):
        out = dict(base)
        for key, value in patch.items():
            out[key] = merge(base[key], value) if key in base else value
        return out
    if isinstance(base, list) and isinstance(patch, list) and all(isinstance(i, dict) and "name" in i for i in patch):
        out = list(base)
        for item in patch:
            names = [i.get("name") for i in out]
            if item["name"] in names:
                out[names.index(item["name"])] = merge(out[names.index(item["name"])], item)
            else:
                out.append(item)
        return out
    return patch


def _render_gpu() -> list[dict]:
    k = yaml.safe_load((GPU / "kustomization.yaml").read_text())
    assert set(k) <= {"apiVersion", "kind", "resources", "images", "patches"}, "renderer knows these only"
    assert k["resources"] == ["../kubernetes"]
    objects = _render()
    for patch_file in (p["path"] for p in k["patches"]):
        patch = yaml.safe_load((GPU / patch_file).read_text())
        for i, o in enumerate(objects):
            if (o["kind"], o["metadata"]["name"]) == (patch["kind"], patch["metadata"]["name"]):
                namespace = o["metadata"].get("namespace")
                objects[i] = merge(o, patch)
                objects[i]["metadata"]["namespace"] = namespace
    images = {i["name"]: i for i in k["images"]}
    for o in objects:
        if o["kind"] == "Deployment":
            pod = o["spec"]["template"]["spec"]
            for c in pod.get("containers", []) + pod.get("initContainers", []):
                name = c["image"].split(":")[0]
                if name in images:
                    c["image"] = f"{images[name]['newName']}:{images[name]['newTag']}"
    return objects


@pytest.fixture(scope="module")
def gpu_objects() -> list[dict]:
    return _render_gpu()


def _deployment(objects) -> dict:
    return next(o for o in objects if o["kind"] == "Deployment" and o["metadata"]["name"] == "traductor")


def _translator(deployment: dict) -> dict:
    return next(c for c in deployment["spec"]["template"]["spec"]["containers"] if c["name"] == "translator")


def test_every_object_is_valid_and_only_the_translator_changes(gpu_objects):
    base = {(o["kind"], o["metadata"]["name"]): o for o in _render()}
    assert {(o["kind"], o["metadata"]["name"]) for o in gpu_objects} == set(base)
    for o in gpu_objects:
        if o["kind"] != "ServiceMonitor":  # a CRD: test_kubernetes.py checks its structure
            assert kubernetes_validate.validate(o, K8S_VERSION, strict=True) == K8S_VERSION
        if (o["kind"], o["metadata"]["name"]) != ("Deployment", "traductor"):
            assert o == base[(o["kind"], o["metadata"]["name"])]


def test_the_translator_asks_for_a_gpu_and_runs_on_it(gpu_objects):
    deployment = _deployment(gpu_objects)
    container = _translator(deployment)
    for kind in ("requests", "limits"):
        assert container["resources"][kind]["nvidia.com/gpu"] == "1"
    assert container["resources"]["requests"] == container["resources"]["limits"]  # Guaranteed QoS kept
    env = {e["name"]: e for e in container["env"]}
    assert env["TRADUCTOR_DEVICE"]["value"] == "cuda"
    assert "TRADUCTOR_TOKEN" in env  # the base's variables stay
    pod = deployment["spec"]["template"]["spec"]
    assert {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"} in pod["tolerations"]
    for c in pod["containers"] + pod["initContainers"]:
        assert c["image"] == "traductor-gpu:0.1.0"
    init = pod["initContainers"][0]
    assert init["resources"]["requests"] == init["resources"]["limits"]


def test_the_base_pod_rules_hold(gpu_objects):
    base, gpu = _deployment(_render()), _deployment(gpu_objects)
    assert gpu["spec"]["selector"] == base["spec"]["selector"]
    assert gpu["spec"]["template"]["metadata"] == base["spec"]["template"]["metadata"]
    for probe in ("readinessProbe", "livenessProbe"):
        assert _translator(gpu)[probe] == _translator(base)[probe]
    assert _translator(gpu)["startupProbe"]["grpc"] == _translator(base)["startupProbe"]["grpc"]
    assert _translator(gpu)["securityContext"] == _translator(base)["securityContext"]
    assert gpu["spec"]["template"]["spec"]["securityContext"] == base["spec"]["template"]["spec"]["securityContext"]


def test_the_init_container_gives_every_model_its_weights(gpu_objects, tmp_path):
    """The init container's command, run here into a temporary directory: a repository whose
    bundles the PyTorch runner finds weights in and accepts (torch_weights.py)."""
    pytest.importorskip("torch")
    from traductor.engine import torch_weights
    from traductor.engine.bundle import load_bundle, scan
    from traductor.packaged import MODELS_DIR

    init = _deployment(gpu_objects)["spec"]["template"]["spec"]["initContainers"][0]
    assert init["command"][:2] == ["python3", "-c"]
    code = init["command"][2].replace("'/models", f"'{tmp_path}").replace("f'/models", f"f'{tmp_path}")
    assert "/models" not in code
    subprocess.run([sys.executable, "-c", code], check=True, timeout=120)  # (the image runs python3)
    models = scan(tmp_path)
    assert set(models) == set(scan(MODELS_DIR)) and models
    for path in models.values():
        bundle = load_bundle(path)
        weights = torch_weights.find_weights(bundle)
        assert weights == path / torch_weights.WEIGHTS_DIR
        torch_weights.load_transformer(bundle, weights)  # the bundle's model, or a BundleError


def test_kubectl_renders_the_same():
    kubectl = shutil.which("kubectl")
    if kubectl is None:
        pytest.skip("kubectl is not installed")
    out = subprocess.run([kubectl, "kustomize", str(GPU)], capture_output=True, text=True, check=True).stdout
    theirs = {(d["kind"], d["metadata"]["name"]): unordered(d) for d in yaml.safe_load_all(out) if d}
    ours = {(d["kind"], d["metadata"]["name"]): unordered(d) for d in copy.deepcopy(_render_gpu())}
    assert theirs == ours


def unordered(value):
    """Lists of named items sorted by name: kubectl puts a patch's new items first, the order means nothing."""
    if isinstance(value, dict):
        return {k: unordered(v) for k, v in value.items()}
    if isinstance(value, list):
        items = [unordered(v) for v in value]
        named = all(isinstance(i, dict) and "name" in i for i in items)
        return sorted(items, key=lambda i: i["name"]) if named else items
    return value


def test_the_gpu_image_installs_torch_with_cuda_and_keeps_the_weights():
    text = re.sub(r"#.*", "", (ROOT / "Dockerfile.gpu").read_text())
    assert re.search(r"^ENV .*TRADUCTOR_DEVICE=cuda", text, re.M | re.S)
    assert re.search(r"^USER (?!root)\w+", text, re.M) and re.search(r"^STOPSIGNAL SIGTERM", text, re.M)
    assert re.search(r'^ENTRYPOINT \["traductor", "serve"\]', text, re.M)
    assert "requirements/gpu.txt" in text and "requirements/serve.txt" in text and "TORCH_INDEX" in text
    pins = (ROOT / "deploy" / "requirements" / "gpu.txt").read_text()
    setup = (ROOT / "scripts" / "setup.sh").read_text()
    torch_pin = re.search(r"^torch==(\S+)", pins, re.M).group(1)
    assert f"torch=={torch_pin}" in setup  # the version the suite tests the runner with
    ignored = [ln.strip() for ln in (ROOT / "Dockerfile.gpu.dockerignore").read_text().splitlines()]
    assert ignored[ignored.index("*") :].count("*") == 1 and "!server/" in ignored
    assert not any("checkpoints" in ln for ln in ignored if not ln.startswith("#"))
