"""Static checks of the compose stack (docker-compose.yml, Dockerfiles and deploy/ configs).

Fast and container-free: they parse the files and check the properties the stack relies on.
tests/compose/run.sh runs the stack for real.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

yaml = pytest.importorskip("yaml")

ROOT = Path(__file__).resolve().parents[1]
DEPLOY = ROOT / "deploy"


def _seconds(duration: str) -> float:
    """A compose duration ("8s", "1m30s", "500ms", or plain seconds) in seconds."""
    text = str(duration).strip()
    if re.fullmatch(r"\d+(\.\d+)?", text):
        return float(text)
    units = {"h": 3600.0, "m": 60.0, "s": 1.0, "ms": 0.001, "us": 1e-6}
    parts = re.findall(r"(\d+(?:\.\d+)?)(ms|us|h|m|s)", text)
    assert parts and "".join(n + u for n, u in parts) == text, f"bad duration {duration!r}"
    return sum(float(n) * units[u] for n, u in parts)


@pytest.fixture(scope="module")
def compose() -> dict:
    return yaml.safe_load((ROOT / "docker-compose.yml").read_text())


@pytest.fixture(scope="module")
def services(compose) -> dict:
    return compose["services"]


@pytest.fixture(scope="module")
def metric_names() -> set[str]:
    """Metric names the server exposes, read from its metrics module when present."""
    source = ROOT / "server" / "traductor" / "service" / "metrics.py"
    names = set()
    if source.exists():
        for kind, name in re.findall(r'\b(Counter|Histogram|Gauge)\(\s*"(traductor_\w+)"', source.read_text()):
            if kind == "Counter":
                names.add(name if name.endswith("_total") else name + "_total")
            elif kind == "Histogram":
                names.update({name, name + "_bucket", name + "_sum", name + "_count"})
            else:
                names.add(name)
    return names


def test_services_present(services):
    assert {"models", "glossaries", "translator", "lb", "prometheus", "loadtest", "grafana", "redis"} <= set(services)


def test_optional_services_are_behind_profiles(services):
    assert services["loadtest"].get("profiles") == ["loadtest"]
    assert services["grafana"].get("profiles") == ["grafana"]
    assert services["redis"].get("profiles") == ["keys"], "keys per caller are turned on, not on by default"
    for name in ("translator", "lb", "prometheus"):
        assert not services[name].get("profiles"), f"{name} must start by default"


def test_built_images_take_the_base_image_argument(services):
    for name in ("translator", "lb", "prometheus", "loadtest"):
        build = services[name]["build"]
        assert build["args"]["BASE_IMAGE"] == "${BASE_IMAGE:-python:3.11-slim}", name
        context = ROOT / build.get("context", ".")
        dockerfile = context / build.get("dockerfile", "Dockerfile")
        text = dockerfile.read_text()
        assert "ARG BASE_IMAGE=python:3.11-slim" in text, dockerfile
        assert re.search(r"^FROM \$\{BASE_IMAGE\}", text, re.M), dockerfile


def test_translator_is_scalable(services):
    translator = services["translator"]
    assert "container_name" not in translator
    assert not translator.get("ports"), "replicas publish no host port; clients go through lb"


def test_translator_serves_the_models_volume(compose, services):
    """The replicas serve the model repository in the named volume `models`, read-only at
    TRADUCTOR_MODEL_REPOSITORY, with the packaged default model as the default; the one-shot
    service `models` (same image, not behind a profile) writes it and must have exited 0 first."""
    from traductor.packaged import DEFAULT_MODEL

    assert "models" in compose["volumes"], "a named volume: it outlives the containers"
    translator, models = services["translator"], services["models"]
    environment = translator["environment"]
    assert environment["TRADUCTOR_MODEL_REPOSITORY"] == "/models"
    assert environment["TRADUCTOR_DEFAULT_MODEL"] == "${TRADUCTOR_DEFAULT_MODEL:-" + DEFAULT_MODEL + "}"
    assert "models:/models:ro" in translator["volumes"]
    assert translator["depends_on"]["models"] == {"condition": "service_completed_successfully"}
    assert models["image"] == translator["image"] and models["build"] == translator["build"]
    assert "models:/models" in models["volumes"] and not models.get("profiles")
    assert models["restart"] == "no" and models["read_only"] is True and models["cap_drop"] == ["ALL"]


def _fill_models(services, repository: Path) -> str:
    """Run the `models` service's command (python3 -c SCRIPT) into a folder instead of /models."""
    import subprocess
    import sys

    models = services["models"]
    assert models["entrypoint"] == ["python3", "-c"]
    (script,) = models["command"]
    result = subprocess.run(
        [sys.executable, "-c", script.replace("/models", str(repository))],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return result.stdout


def test_the_models_service_fills_a_repository_the_server_serves(services, tmp_path):
    """The `models` command copies the packaged models into the volume; run again it leaves an
    identical model alone, replaces a changed one, and keeps a model of the operator's own; the
    server's repository scan then finds both, the default among them."""
    from dataclasses import replace

    from traductor.packaged import DEFAULT_MODEL, MODELS_DIR
    from traductor.service.models import default_name, model_paths
    from traductor.service.settings import Settings

    repository = tmp_path / "models"
    repository.mkdir()
    assert f"{DEFAULT_MODEL} copied from the image" in _fill_models(services, repository)
    copied = repository / DEFAULT_MODEL
    assert sorted(p.name for p in copied.iterdir()) == sorted(p.name for p in (MODELS_DIR / DEFAULT_MODEL).iterdir())
    inode = copied.stat().st_ino
    own = repository / "en-es-b"  # an operator's model beside the packaged one
    own.mkdir()
    for file in copied.iterdir():
        (own / file.name).write_bytes(file.read_bytes())
    assert f"{DEFAULT_MODEL} is up to date" in _fill_models(services, repository)
    assert copied.stat().st_ino == inode, "an identical model is not rewritten"
    (copied / "config.json").write_text("{}")  # changed (an older image's copy): replaced
    assert f"{DEFAULT_MODEL} copied from the image" in _fill_models(services, repository)
    assert (copied / "config.json").read_bytes() == (MODELS_DIR / DEFAULT_MODEL / "config.json").read_bytes()
    packaged = sorted(p.name for p in MODELS_DIR.iterdir() if (p / "config.json").is_file())
    assert sorted(p.name for p in repository.iterdir()) == sorted([*packaged, "en-es-b"]), "no leftovers"
    settings = replace(Settings(), model_repository=str(repository), default_model=DEFAULT_MODEL)
    names = list(model_paths(settings))
    assert names == sorted([*packaged, "en-es-b"]) and default_name(settings, names) == DEFAULT_MODEL


def test_replicas_share_a_writable_glossary_volume(compose, services):
    """Glossaries (DeepL's /v2/glossaries, gRPC glossary_id) go to TRADUCTOR_GLOSSARY_DIR: the
    named volume `glossaries`, mounted writable there in every replica (the same volume for all:
    no per-replica name), outside the read-only model repository; the one-shot service
    `glossaries` (same image, root with CAP_CHOWN only) gives it to the image's user first."""
    from dataclasses import replace

    from traductor.service.glossaries import default_dir
    from traductor.service.settings import Settings

    assert "glossaries" in compose["volumes"], "a named volume: it outlives the containers"
    translator, init = services["translator"], services["glossaries"]
    path = translator["environment"]["TRADUCTOR_GLOSSARY_DIR"]
    assert f"glossaries:{path}" in translator["volumes"], "mounted read-write where the server writes"
    repository = translator["environment"]["TRADUCTOR_MODEL_REPOSITORY"]
    assert not path.startswith(repository.rstrip("/") + "/"), "the model repository is read-only"
    settings = replace(Settings(), model_repository=repository)
    assert default_dir(settings) == Path(repository) / "glossaries", "without the variable: read-only, 500"
    assert default_dir(replace(settings, glossary_dir=path)) == Path(path)
    assert translator["depends_on"]["glossaries"] == {"condition": "service_completed_successfully"}
    assert init["image"] == translator["image"] and init["build"] == translator["build"]
    assert f"glossaries:{path}" in init["volumes"] and not init.get("profiles")
    assert init["user"] == "0:0" and init["cap_drop"] == ["ALL"] and init["cap_add"] == ["CHOWN"]
    assert init["read_only"] is True and init["restart"] == "no"


def test_the_glossaries_service_hands_the_volume_to_the_image_user(services, tmp_path):
    """Its command, run here on a folder (the user looked up as the image's, faked to this one):
    the folder is chowned to the user the Dockerfile creates and runs as."""
    import subprocess
    import sys

    dockerfile = (ROOT / "Dockerfile").read_text().replace("\\\n", " ")  # continuation lines joined
    user = re.search(r"useradd --uid (\d+) --gid (\w+) .*? (\w+)\s*$", dockerfile, re.M)
    assert user and re.search(rf"^USER {user[1]}:", dockerfile, re.M), "the image runs as the user it creates"
    init = services["glossaries"]
    assert init["entrypoint"] == ["python3", "-c"]
    (script,) = init["command"]
    assert f'getpwnam("{user[3]}")' in script
    path = services["translator"]["environment"]["TRADUCTOR_GLOSSARY_DIR"]
    (tmp_path / "g").mkdir()
    fake = (
        "import os, pwd, types\n"
        "pwd.getpwnam = lambda n: types.SimpleNamespace(pw_name=n, pw_uid=os.getuid(), pw_gid=os.getgid())\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", fake + script.replace(path, str(tmp_path / "g"))],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert f"belongs to {user[3]}" in result.stdout and "holds 0 glossaries" in result.stdout


KEYS_URL = "redis://redis:6379/0"  # what docker-compose.yml's header and docs/compose.md tell to set


def _environ(services, **values) -> dict:
    """The translator's environment as compose gives it: ${NAME:-default} read from `values`."""
    out = {}
    for name, value in services["translator"]["environment"].items():
        default = re.fullmatch(r"\$\{(\w+):-(.*)\}", str(value))
        out[name] = values.get(default[1], default[2]) if default else str(value)
    return out


def test_redis_is_a_pinned_locked_down_internal_service(compose, services):
    """The key store of the replicas: the official Redis image at a pinned version (REDIS_IMAGE
    may replace it), reached on the compose network only, non-root, read-only but for its
    append-only file in a named volume, with a health check."""
    redis = services["redis"]
    image = re.fullmatch(r"\$\{REDIS_IMAGE:-(.+)\}", redis["image"])
    assert image and re.fullmatch(r"docker\.io/library/redis:\d+\.\d+\.\d+(-[a-z0-9.]+)?", image[1]), redis["image"]
    assert not redis.get("ports") and redis["expose"] == ["6379"]
    assert redis["user"] != "0:0" and not str(redis["user"]).startswith("0")
    assert redis["cap_drop"] == ["ALL"] and "cap_add" not in redis and redis["read_only"] is True
    assert redis["security_opt"] == ["no-new-privileges:true"]
    assert "redis-data:/data" in redis["volumes"] and "redis-data" in compose["volumes"]
    command = redis["command"]
    assert command[0] == "redis-server" and command[command.index("--appendonly") + 1] == "yes", "keys kept"
    assert "redis-cli" in redis["healthcheck"]["test"] and "ping" in redis["healthcheck"]["test"]
    assert redis["restart"] == "unless-stopped"
    assert "redis" not in services["translator"].get("depends_on", {}), "it is behind a profile"


def test_replicas_ask_no_key_unless_told_and_share_redis_when_told(services):
    """By default the replicas ask no key (as before); with TRADUCTOR_KEYS_REDIS set as the file
    says, every replica's key store is the `redis` service (its name and port), so limits,
    usage and revocations are one for all; TRADUCTOR_TOKEN stays the administrator's key."""
    import argparse
    from dataclasses import replace

    from traductor.service.keys.redis_store import RedisKeyStore
    from traductor.service.keys.stores import gate_for
    from traductor.service.settings import Settings

    parser = argparse.ArgumentParser()
    Settings.add_arguments(parser)
    plain = Settings.from_args(parser.parse_args([]), environ=_environ(services))
    assert plain.keys_redis == "" and plain.token == "" and not plain.api_keys
    assert not gate_for(plain).required, "an open server, as before"
    told = f"TRADUCTOR_KEYS_REDIS={KEYS_URL} docker compose --profile keys up"
    assert told in (ROOT / "docker-compose.yml").read_text()
    assert KEYS_URL in (ROOT / "docs" / "compose.md").read_text()
    keyed = Settings.from_args(
        parser.parse_args([]), environ=_environ(services, TRADUCTOR_KEYS_REDIS=KEYS_URL, TRADUCTOR_TOKEN="t")
    )
    gate = gate_for(replace(keyed, glossary_dir="/nonexistent"))
    assert isinstance(gate.store, RedisKeyStore) and gate.required and gate.token == "t"
    host, port = re.fullmatch(r"redis://([\w-]+):(\d+)/\d+", KEYS_URL).groups()
    assert host in services and services[host]["expose"] == [port]


def test_translator_healthcheck_uses_grpc_health(services):
    check = services["translator"]["healthcheck"]
    test = check["test"]
    command = " ".join(test if isinstance(test, list) else [test])
    assert "traductor-client" in command and " health" in command
    assert _seconds(check["interval"]) <= 30


def test_translator_stops_gracefully_within_ten_seconds(services):
    translator = services["translator"]
    assert translator.get("stop_signal", "SIGTERM") == "SIGTERM"
    grace = _seconds(translator["stop_grace_period"])
    assert 0 < grace < 10
    drain = translator.get("environment", {}).get("TRADUCTOR_DRAIN_SECONDS")
    if drain is not None:
        default = re.fullmatch(r"\$\{TRADUCTOR_DRAIN_SECONDS:-([\d.]+)\}", str(drain))
        value = float(default.group(1) if default else drain)
        assert value < grace, "the server must finish draining before compose sends SIGKILL"


def test_ports_published_on_loopback_only(services):
    published = 0
    for name, service in services.items():
        for port in service.get("ports", []) or []:
            if isinstance(port, dict):
                assert port.get("host_ip") == "127.0.0.1", (name, port)
            else:
                assert str(port).startswith("127.0.0.1:"), (name, port)
            published += 1
    assert published >= 2
    # the host port may be moved (LB_PORT), the default stays the gRPC port
    assert "127.0.0.1:${LB_PORT:-50051}:50051" in services["lb"]["ports"]


def test_loadtest_targets_the_balancer(services):
    command = " ".join(services["loadtest"]["command"])
    assert "loadtest" in command
    assert "lb:50051" in command
    assert "--json-out" in command
    mounts = [str(v) for v in services["loadtest"].get("volumes", [])]
    assert any(v.endswith(":/reports") for v in mounts)


def test_serving_dockerfile():
    text = (ROOT / "Dockerfile").read_text()
    assert "torch" not in re.sub(r"#.*", "", text), "the serving image must not install torch"
    assert re.search(r"^USER (?!root)\w+", text, re.M), "runs as a non-root user"
    assert re.search(r"^STOPSIGNAL SIGTERM", text, re.M)
    assert re.search(r"^HEALTHCHECK .*", text, re.M) and "traductor-client" in text
    # the default bundle shipped in the package: nothing exported on the host first
    assert re.search(r'^ENTRYPOINT \["traductor", "serve"\]', text, re.M)
    assert "build/bundle" not in re.sub(r"#.*", "", text)
    serve = (DEPLOY / "requirements" / "serve.txt").read_text()
    assert not re.search(r"^torch", serve, re.M)
    assert re.search(r"^onnxruntime", serve, re.M)


def test_dockerignore_keeps_the_context_small():
    lines = [
        line.strip()
        for line in (ROOT / ".dockerignore").read_text().splitlines()
        if line.strip() and not line.lstrip().startswith("#")
    ]
    assert lines[0] == "*", "an allowlist: everything is ignored first"
    allowed = {line[1:].rstrip("/") for line in lines if line.startswith("!")}
    assert {"server", "client", "pyproject.toml", "deploy"} <= allowed
    assert not {"work", ".git", "build"} & allowed


def test_prometheus_scrapes_every_replica():
    config = yaml.safe_load((DEPLOY / "prometheus" / "prometheus.yml").read_text())
    jobs = {job["job_name"]: job for job in config["scrape_configs"]}
    job = jobs["traductor"]
    assert job.get("metrics_path", "/metrics") == "/metrics"
    dns = job["dns_sd_configs"]
    assert any("translator" in sd["names"] and sd.get("type", "SRV") == "A" and sd["port"] == 9090 for sd in dns), (
        "DNS A records of the service name find every replica"
    )


def test_nginx_balances_grpc_per_request():
    conf = (DEPLOY / "lb" / "nginx.conf.template").read_text()
    code = re.sub(r"#.*", "", conf)
    assert re.search(r"listen\s+50051\s+http2", code), "plaintext HTTP/2 for gRPC clients"
    assert re.search(r"grpc_pass\s+grpc://translator_replicas\s*;", code)
    assert not re.search(r"^\s*stream\s*\{", code, re.M), (
        "TCP balancing would pin each HTTP/2 connection to one replica"
    )
    assert not re.search(r"^\s*keepalive\s", code, re.M), "a connection per call lets a refused one be retried"
    assert re.search(r"grpc_next_upstream\s+error", code)
    assert re.search(r"include\s+@UPSTREAMS@\s*;", code)
    # the upstream block comes from the DNS answer for the service name, refreshed while running
    entrypoint = (DEPLOY / "lb" / "entrypoint.sh").read_text()
    assert "getent ahostsv4" in entrypoint and "upstream translator_replicas" in entrypoint
    assert "-s reload" in entrypoint
    assert (DEPLOY / "lb" / "Dockerfile").read_text().count("entrypoint.sh") == 1


def test_grafana_provisioning():
    source = yaml.safe_load((DEPLOY / "grafana" / "provisioning" / "datasources" / "prometheus.yml").read_text())
    (datasource,) = source["datasources"]
    assert datasource["type"] == "prometheus" and datasource["url"] == "http://prometheus:9090"
    provider = yaml.safe_load((DEPLOY / "grafana" / "provisioning" / "dashboards" / "traductor.yml").read_text())
    assert provider["providers"][0]["options"]["path"] == "/var/lib/grafana/dashboards"


def _dashboard_exprs(dashboard: dict) -> list[tuple[str, str]]:
    return [(panel["title"], target["expr"]) for panel in dashboard["panels"] for target in panel.get("targets", [])]


def test_dashboard_json(metric_names):
    path = DEPLOY / "grafana" / "dashboards" / "traductor.json"
    dashboard = json.loads(path.read_text())
    titles = {panel["title"] for panel in dashboard["panels"]}
    for wanted in [
        "Request rate",
        "Error rate",
        "Latency p50 / p99",
        "Time to first token",
        "Output tokens / s",
        "Batch size",
        "Queue depth",
        "Active sequences",
        "KV cache bytes",
    ]:
        assert wanted in titles
    datasource = yaml.safe_load((DEPLOY / "grafana" / "provisioning" / "datasources" / "prometheus.yml").read_text())
    uid = datasource["datasources"][0]["uid"]
    exprs = _dashboard_exprs(dashboard)
    assert exprs
    for title, expr in exprs:
        names = re.findall(r"\b(traductor_\w+)", expr)
        assert names, f"{title}: {expr} names no traductor_ metric"
        if metric_names:  # the server's metrics module is present: every name must be real
            unknown = set(names) - metric_names
            assert not unknown, f"{title}: unknown metrics {unknown}"
    for panel in dashboard["panels"]:
        assert panel["datasource"]["uid"] == uid, panel["title"]
    ids = [panel["id"] for panel in dashboard["panels"]]
    assert len(ids) == len(set(ids))


def test_serve_command_runs_without_torch():
    """The serving image has no torch: `traductor serve` (its entrypoint) must not import it."""
    import subprocess
    import sys

    code = (
        "import sys\n"
        "sys.modules['torch'] = None  # any `import torch` now raises ImportError\n"
        "from traductor.cli import main\n"
        "sys.exit(main(['serve', '--help']))\n"
    )
    paths = [str(ROOT / "server"), str(ROOT / "export"), str(ROOT / "client")]
    env = {"PYTHONPATH": ":".join(paths), "PATH": "/usr/bin:/bin"}
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert "--model" in result.stdout


def test_serving_image_pins_every_runtime_dependency():
    """Each dependency of the server distribution is pinned in the serving image's requirements
    (the image installs traductor with --no-deps, so a missing one crashes `traductor serve`)."""
    import re
    import tomllib

    wanted = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    names = {re.split(r"[<>=!~ \[]", d, maxsplit=1)[0].lower() for d in wanted} - {"traductor-client"}
    pinned = {
        line.split("==")[0].strip().lower()
        for line in (ROOT / "deploy/requirements/serve.txt").read_text().splitlines()
        if "==" in line and not line.lstrip().startswith("#")
    }
    assert names <= pinned, f"not in deploy/requirements/serve.txt: {sorted(names - pinned)}"


def test_file_uploads_and_downloads_reach_the_same_replica(tmp_path):
    """/translate_file keeps its result in one replica's memory: the balancer sends the upload and
    the download by the client's address to the same replica (entrypoint.sh's sticky upstream,
    rendered here from two addresses); DeepL's /v2/document keeps its documents on the shared
    glossary volume, so it is balanced like any call (not pinned); the page's stream is not
    buffered."""
    import subprocess

    conf = (DEPLOY / "lb" / "nginx.conf.template").read_text()
    files = re.search(r"location ~ \^/\(translate_file\|download_file/\) \{(.*?)\}", conf, re.S)
    assert files and "proxy_pass http://translator_http_files;" in files[1] and "Host $http_host" in files[1]
    pinned = re.findall(r"location ~ (\S+) \{[^}]*proxy_pass http://translator_http_files;", conf)
    assert pinned == ["^/(translate_file|download_file/)"], "only /translate_file's upload and download are pinned"
    assert not re.search(r"location[^{]*document", conf), "/v2/document takes the balanced location /"
    assert re.search(r"location / \{[^}]*proxy_pass http://translator_http;", conf)
    assert re.search(r"location = /translate_stream \{[^}]*proxy_buffering off;", conf)
    entrypoint = (DEPLOY / "lb" / "entrypoint.sh").read_text()
    functions = "\n".join(re.findall(r"^(\w+\(\) \{.*?^\})", entrypoint, re.S | re.M))
    script = f'UPSTREAMS={tmp_path}/up.conf\n{functions}\nprintf "10.0.0.2\\n10.0.0.3\\n" | render\n'
    subprocess.run(["bash", "-c", script], check=True, env={"UPSTREAM_PORT": "50051", "UPSTREAM_HTTP_PORT": "5000"})
    rendered = (tmp_path / "up.conf").read_text()
    sticky = re.search(r"upstream translator_http_files \{(.*?)\}", rendered, re.S)[1]
    assert "hash $remote_addr consistent;" in sticky and "backup" not in sticky
    assert sticky.count("server 10.0.0.") == 2 and "upstream translator_http {" in rendered


# --- the locally built Redis image (deploy/redis), for machines without a registry ----------


def _dockerfile(path: Path) -> dict[str, list[str]]:
    """Instructions of a Dockerfile by keyword (continuation lines joined)."""
    text = re.sub(r"\\\n", " ", path.read_text())
    found: dict[str, list[str]] = {}
    for line in text.splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            word, _, rest = line.strip().partition(" ")
            found.setdefault(word.upper(), []).append(rest.strip())
    return found


def test_the_local_redis_image_runs_as_compose_and_kubernetes_expect(services):
    """deploy/redis (Debian's redis-server, REDIS_IMAGE of tests/compose/keys.sh) keeps what the
    compose service and the Kubernetes Deployment rely on: the uid/gid they run it as, its data in
    /data (the volume's mount path, where a redis-server without --dir writes), redis-server as
    the command they give, built on the BASE_IMAGE argument as the other images."""
    redis = services["redis"]
    dockerfile = _dockerfile(DEPLOY / "redis" / "Dockerfile")
    run = " ".join(dockerfile["RUN"])
    uid, gid = re.search(r"--uid (\d+)", run)[1], re.search(r"--gid (\d+) redis", run)[1]
    assert f"{uid}:{gid}" == redis["user"] == dockerfile["USER"][-1]
    assert "redis-server" in re.search(r"apt-get install [^&]*", run)[0]
    assert "install -d -o redis -g redis" in run and "/data" in run
    assert dockerfile["WORKDIR"] == ["/data"] and "redis-data:/data" in redis["volumes"]
    assert dockerfile["FROM"] == ["${BASE_IMAGE}"] and dockerfile["ARG"][0].startswith("BASE_IMAGE=")
    assert json.loads(dockerfile["CMD"][0])[0] == redis["command"][0] == "redis-server"
    manifest = yaml.safe_load((DEPLOY / "kubernetes" / "redis-deployment.yaml").read_text())
    pod = manifest["spec"]["template"]["spec"]
    assert (str(pod["securityContext"]["runAsUser"]), str(pod["securityContext"]["runAsGroup"])) == (uid, gid)
    (container,) = pod["containers"]
    args = container["args"]
    assert args[0] == "redis-server" and args[args.index("--dir") + 1] == "/data"
    assert [m["mountPath"] for m in container["volumeMounts"] if m["name"] == "data"] == ["/data"]


def test_the_local_redis_image_listens_to_other_containers(tmp_path):
    """Without a configuration file or a password redis-server refuses clients off its loopback
    (protected mode): the entrypoint turns it off first, as the official image does, and passes
    the compose file's arguments after it, so that they win; other commands run as given."""
    import os
    import subprocess

    fake = tmp_path / "redis-server"
    fake.write_text('#!/bin/sh\nprintf "%s\\n" "$@"\n')
    fake.chmod(0o755)
    entrypoint = DEPLOY / "redis" / "entrypoint.sh"
    env = {**os.environ, "PATH": f"{tmp_path}:{os.environ['PATH']}"}
    compose_args = yaml.safe_load((ROOT / "docker-compose.yml").read_text())["services"]["redis"]["command"]
    out = subprocess.run(["sh", str(entrypoint), *compose_args], capture_output=True, text=True, env=env, check=True)
    assert out.stdout.split("\n")[:-1] == ["--protected-mode", "no", *compose_args[1:]]
    out = subprocess.run(["sh", str(entrypoint), "echo", "redis-cli"], capture_output=True, text=True, check=True)
    assert out.stdout == "redis-cli\n"
    assert "ENTRYPOINT" in _dockerfile(DEPLOY / "redis" / "Dockerfile")


def test_the_keys_run_starts_what_the_docs_say(services):
    """tests/compose/keys.sh runs the stack with the profile and the URL docs/compose.md gives,
    makes keys with `traductor keys` inside a replica, and names a Redis image it builds from
    deploy/redis (the official image stays the file's default)."""
    script = (ROOT / "tests" / "compose" / "keys.sh").read_text()
    assert f'TRADUCTOR_KEYS_REDIS="{KEYS_URL}"' in script
    assert "--profile keys up" in script and "traductor keys add" in script and "traductor keys revoke" in script
    local = re.search(r'REDIS_IMAGE="\$\{REDIS_IMAGE:-([^}]+)\}"', script)[1]
    assert local.startswith("localhost/") and f'"$REDIS_IMAGE" == {local.split(":")[0]}:*' in script
    assert "deploy/redis" in script and local not in services["redis"]["image"]
