#!/usr/bin/env bash
# End-to-end run of docker-compose.yml under Podman (no Docker engine, no image registry).
#
#   tests/compose/run.sh
#
# 1. sets Podman up (packages, a containers.conf, podman-compose >= 1.1 for profiles/--scale)
# 2. imports a Debian bookworm + python3 base image built with debootstrap, if missing
# 3. builds the four images (translator, lb, prometheus, loadtest) from the repository alone:
#    nothing is exported or installed on the host first (the model ships in the package)
# 4. starts translator x REPLICAS, lb and prometheus on a model repository of two models: the
#    `models` volume gets a second model first (SECOND_MODEL, a copy of the packaged en-es under
#    another name, written into the volume as an operator would add one), then the compose
#    `models` service adds the packaged en-es; waits until every replica is SERVING; ListModels
#    through the balancer lists both, a call naming each is answered (and counted under its
#    model label in the replicas' /metrics), an unknown model is NOT_FOUND; the `glossaries`
#    volume (the compose `glossaries` service gives it to the image's user): a glossary created
#    through the balancer's DeepL API is listed and applied through the balancer (several
#    replicas answering) and by each replica asked directly; concurrent creates and deletes
#    through the balancer lose nothing (tests/stack_glossary_check.py)
# 5. runs the compose `loadtest` service against lb:50051
# 6. checks: the serving image (no torch, the packaged bundle, no checkpoint, non-root); no
#    errors in the report; every replica served calls (its own /metrics); Prometheus has every
#    replica as an `up` target; scaling up reaches the balancer; under a client load that counts
#    every call (tests/compose/churn.sh): RESTARTS rolling restarts lose no call and every one of
#    those SIGTERMs ends in exit 0 within the grace period with no stall report, and a replica
#    killed with SIGKILL fails only its calls in flight, then restarts and serves again; a
#    replica stopped under load exits within its grace period; after the restarts and the kill,
#    the glossary is still listed and applied by every replica (the one added by scaling too)
# 7. prints a summary and tears the stack down, whatever happened (trap)
#
# This run serves without keys (its load generator and glossary checks send none); the profile
# `keys` (Redis shared by the replicas, keys per caller) runs in tests/compose/keys.sh.
#
# Environment (all optional):
#   REPLICAS=2                translator replicas
#   LOADTEST_DURATION=15      seconds per concurrency level
#   LOADTEST_CONCURRENCY=1,8  concurrency levels
#   BUILD=0                   reuse the images already built (skip step 3); or a comma list of
#                             the images to build, the others reused: BUILD=lb (translator, lb,
#                             prometheus, loadtest)
#   RESTARTS=10               rolling restarts under load; CHURN_CONCURRENCY=4 gRPC client threads
#                             during them and during the kill, CHURN_HTTP_CONCURRENCY=2 more on the
#                             HTTP API during the restarts; CHURN_WAIT=300 seconds any wait of
#                             those checks may take; KILL_RESTART_WAIT=60 for the restart policy
#   KEEP_STACK=1              leave the stack running at the end (tear down with the printed command)
#   SECOND_MODEL=en-es-b      the name of the second model in the repository
#   COMPOSE_WORK=DIR          scratch folder for containers.conf, the rootfs, podman-compose
#                             (default /tmp/traductor-compose)
# Exit status: 0 when every check passed.
set -Eeuo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"

REPLICAS="${REPLICAS:-2}"
export LOADTEST_DURATION="${LOADTEST_DURATION:-15}"
export LOADTEST_CONCURRENCY="${LOADTEST_CONCURRENCY:-1,8}"
export BASE_IMAGE="${BASE_IMAGE:-localhost/debian-python:bookworm}"
WORK="${COMPOSE_WORK:-/tmp/traductor-compose}"
PROJECT="traductor-e2e"
SECOND_MODEL="${SECOND_MODEL:-en-es-b}"
REPORTS="$ROOT/build/reports"
PODMAN_COMPOSE_VERSION="1.6.0"   # Debian's 1.0.3 ignores `profiles` and `--scale`

# shellcheck source=tests/compose/podman.sh
source "$ROOT/tests/compose/podman.sh"
# Time a step: timed NAME command...
TIMINGS=()
STEP="" STEP_START=0
timed() {
    local name="$1"; shift
    STEP="$name" STEP_START=$(date +%s)
    log "== $name"
    "$@"
    TIMINGS+=("$(printf '%-28s %4ss' "$name" "$(( $(date +%s) - STEP_START ))")")
    STEP=""
}

# ---------------------------------------------------------------------------------------------
# 1. Podman
# setup_podman, setup_base_image: tests/compose/podman.sh

# 3. Images: built directly with podman (host network for pip/apt; docker format keeps HEALTHCHECK).
# BUILD: 1 (all), or a comma list of the images to build.
build_images() {
    local common=(--network=host --format docker --build-arg "BASE_IMAGE=$BASE_IMAGE" --quiet)
    wanted() { [[ "${BUILD:-1}" == 1 || ",${BUILD}," == *",$1,"* ]]; }
    if wanted translator; then
        nice -n 19 podman build "${common[@]}" -t traductor:latest -f Dockerfile . > /dev/null
    fi
    if wanted lb; then
        nice -n 19 podman build "${common[@]}" -t traductor-lb:latest deploy/lb > /dev/null
    fi
    if wanted prometheus; then
        nice -n 19 podman build "${common[@]}" -t traductor-prometheus:latest deploy/prometheus > /dev/null
    fi
    if wanted loadtest; then
        nice -n 19 podman build "${common[@]}" -t traductor-loadtest:latest -f deploy/loadtest/Dockerfile . > /dev/null
    fi
    podman images --format '{{.Repository}}:{{.Tag}} {{.Size}}' | grep -E 'traductor' | sed 's/^/    /'
}

compose() { "$PC" -p "$PROJECT" "$@"; }

containers_of() {
    podman ps -a --format '{{.Names}}' \
        --filter "label=com.docker.compose.project=$PROJECT" \
        --filter "label=com.docker.compose.service=$1" | sort
}

# replica_calls and the restart/kill checks under load
# shellcheck source=tests/compose/churn.sh
source "$ROOT/tests/compose/churn.sh"

# ---------------------------------------------------------------------------------------------
print_summary() {
    echo
    echo "=== summary (${REPLICAS} replicas, ${LOADTEST_DURATION}s per level, concurrency ${LOADTEST_CONCURRENCY})"
    (( ${#SUMMARY[@]} )) && printf '  %s\n' "${SUMMARY[@]}"
    (( ${#FAILURES[@]} )) && printf '  FAIL  %s\n' "${FAILURES[@]}"
    echo "=== timings"
    (( ${#TIMINGS[@]} )) && printf '  %s\n' "${TIMINGS[@]}"
    [[ -f "$REPORTS/loadtest.json" ]] && echo "  report: build/reports/loadtest.json"
    return 0
}

STACK_UP=0
teardown() {
    local status=$?
    set +e
    # the step that was cut short, if any
    [[ -n "$STEP" ]] && TIMINGS+=("$(printf '%-28s %4ss (did not finish)' "$STEP" "$(( $(date +%s) - STEP_START ))")")
    print_summary
    if (( STACK_UP )); then
        # full logs of every container, for a look afterwards
        mkdir -p "$WORK/logs"
        for c in $(podman ps -a --format '{{.Names}}' --filter "label=com.docker.compose.project=$PROJECT"); do
            podman logs "$c" > "$WORK/logs/$c.log" 2>&1
        done
        log "container logs saved in $WORK/logs/"
        if (( ${#FAILURES[@]} )) || (( status )); then
            log "logs of the stack (last lines of each container):"
            for c in $(podman ps -a --format '{{.Names}}' --filter "label=com.docker.compose.project=$PROJECT"); do
                echo "----- $c"
                { podman logs --tail 25 "$c" 2>&1 | grep -v 'systemd' || true; } | sed 's/^/    /'
            done
        fi
        if [[ "${KEEP_STACK:-0}" == 1 ]]; then
            log "KEEP_STACK=1: left running; stop it with: CONTAINERS_CONF=$CONTAINERS_CONF $PC -p $PROJECT --profile loadtest down -v"
        else
            log "tearing the stack down"
            # every replica, whatever the scale (podman-compose down only knows the file's scale)
            podman ps -q --filter "label=com.docker.compose.project=$PROJECT" | xargs -r podman stop -t 10 > /dev/null 2>&1
            compose --profile loadtest down -v -t 10 > "$WORK/down.log" 2>&1 \
                || log "compose down failed (see $WORK/down.log)"
            podman ps -a -q --filter "label=com.docker.compose.project=$PROJECT" | xargs -r podman rm -f > /dev/null 2>&1
            podman network rm -f "${PROJECT}_default" > /dev/null 2>&1
            podman volume rm -f "${PROJECT}_prometheus-data" "${PROJECT}_models" "${PROJECT}_glossaries" > /dev/null 2>&1
            if [[ -n "$(podman ps -a -q --filter "label=com.docker.compose.project=$PROJECT")" ]]; then
                log "WARNING: containers of $PROJECT are still there"
            fi
        fi
    fi
    log "total $(( $(date +%s) - T0 ))s"
    if (( status == 0 && ${#FAILURES[@]} == 0 )); then
        exit 0
    fi
    exit $(( status ? status : 1 ))
}
trap teardown EXIT
trap 'exit 130' INT TERM

timed "podman setup" setup_podman
timed "base image" setup_base_image
if [[ "${BUILD:-1}" == 0 ]]; then
    log "BUILD=0: reusing the images already built"
else
    timed "build images" build_images
fi

# The serving image: runtime only (no torch), the packaged bundle, no checkpoint, non-root.
check_image() {
    local out
    if out=$(podman run --rm --entrypoint python3 traductor:latest -c '
import importlib.resources, importlib.util, json, os, pwd, sys
package = importlib.resources.files("traductor")
facts = {"torch": importlib.util.find_spec("torch") is not None,
         "onnxruntime": importlib.util.find_spec("onnxruntime") is not None,
         "bundle": sorted(os.listdir(package / "models" / "en-es")) if (package / "models" / "en-es").is_dir() else None,
         "checkpoint": (package / "checkpoints").is_dir(),
         "user": pwd.getpwuid(os.getuid()).pw_name}
print(json.dumps(facts))
sys.exit(0 if not facts["torch"] and facts["onnxruntime"] and facts["bundle"] and not facts["checkpoint"]
         and facts["user"] != "root" else 1)' 2>&1 | grep -v systemd); then
        pass "serving image: no torch, onnxruntime present, non-root, no checkpoint, packaged bundle $(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["bundle"])' "$out")"
    else
        fail "serving image: $out"
    fi
}
check_image

export LB_PORT LB_HTTP_PORT PROMETHEUS_PORT
LB_PORT=$(free_port)
LB_HTTP_PORT=$(free_port)
PROMETHEUS_PORT=$(free_port)
mkdir -p "$REPORTS"
chmod 0777 "$REPORTS"          # the load-test container writes as an unprivileged user
rm -f "$REPORTS/loadtest.json"

# 4. The stack
start_stack() {
    compose down -v -t 5 > /dev/null 2>&1 || true
    STACK_UP=1
    # A model added to the repository volume before the stack starts, as docs/compose.md shows:
    # the packaged bundle copied under another name (no download).
    podman volume rm -f "${PROJECT}_models" > /dev/null 2>&1 || true
    podman volume create "${PROJECT}_models" > /dev/null
    podman run --rm --user 0:0 -v "${PROJECT}_models:/models" --entrypoint python3 traductor:latest -c "
import shutil
from traductor.packaged import DEFAULT_MODEL, MODELS_DIR
shutil.copytree(MODELS_DIR / DEFAULT_MODEL, '/models/$SECOND_MODEL')" 2>&1 | grep -v systemd || true
    # podman-compose turns depends_on into `podman create --requires`: then Podman (4.3) starts
    # the exited `models` container again at every start of a replica, and its restart policy
    # cannot restart a killed replica (its required container is not running; seen in a run:
    # the kill -9 check had to restart it by hand). So: `models` first, to completion, then
    # everything else with --no-deps (no --requires), as docs/compose.md says for Podman.
    compose up -d --no-build models glossaries > "$WORK/up.log" 2>&1 || { cat "$WORK/up.log"; return 1; }
    podman wait "$(containers_of models | head -1)" "$(containers_of glossaries | head -1)" > /dev/null
    compose up -d --no-build --no-deps --scale "translator=$REPLICAS" >> "$WORK/up.log" 2>&1 || {
        cat "$WORK/up.log"; return 1; }
    podman ps --filter "label=com.docker.compose.project=$PROJECT" --format '    {{.Names}}  {{.Status}}  {{.Ports}}'
    local init
    init=$(containers_of models | head -1)
    podman logs "$init" 2>&1 | grep -v systemd | sed 's/^/    /'
    if [[ "$(podman inspect -f '{{.State.ExitCode}} {{.State.Running}}' "$init")" == "0 false" ]]; then
        pass "the models service filled the repository volume and exited 0"
    else
        fail "the models service ($init) did not exit 0: $(podman inspect -f '{{.State.Status}} {{.State.ExitCode}}' "$init")"
    fi
    init=$(containers_of glossaries | head -1)
    podman logs "$init" 2>&1 | grep -v systemd | sed 's/^/    /'
    if [[ "$(podman inspect -f '{{.State.ExitCode}} {{.State.Running}}' "$init")" == "0 false" ]]; then
        pass "the glossaries service gave the glossary volume to the image's user and exited 0"
    else
        fail "the glossaries service ($init) did not exit 0: $(podman inspect -f '{{.State.Status}} {{.State.ExitCode}}' "$init")"
    fi
}
timed "compose up" start_stack

# Podman runs healthchecks from systemd timers, which these machines lack: run them ourselves.
wait_healthy() {
    local deadline=$(( $(date +%s) + 240 )) c healthy
    mapfile -t TRANSLATORS < <(containers_of translator)
    if (( ${#TRANSLATORS[@]} != REPLICAS )); then
        fail "expected $REPLICAS translator containers, found ${#TRANSLATORS[@]}: ${TRANSLATORS[*]}"
        return 1
    fi
    while :; do
        healthy=0
        for c in "${TRANSLATORS[@]}"; do
            podman healthcheck run "$c" > /dev/null 2>&1 && healthy=$(( healthy + 1 ))
        done
        if (( healthy == REPLICAS )); then
            break
        fi
        # a replica that keeps crashing will not get better: stop waiting
        for c in "${TRANSLATORS[@]}"; do
            if (( $(podman inspect -f '{{.RestartCount}}' "$c" 2>/dev/null || echo 0) >= 3 )); then
                fail "$c is crash-looping (restarted $(podman inspect -f '{{.RestartCount}}' "$c") times)"
                return 1
            fi
        done
        if (( $(date +%s) > deadline )); then
            fail "only $healthy of $REPLICAS replicas became healthy"
            return 1
        fi
        sleep 3
    done
    # ... and SERVING through the balancer from the host (published port), asked by the client
    # image: the host needs no Python packages
    until podman run --rm --network=host traductor-loadtest:latest health --target "127.0.0.1:$LB_PORT" > /dev/null 2>&1; do
        if (( $(date +%s) > deadline )); then
            fail "the load balancer does not answer SERVING on 127.0.0.1:$LB_PORT"
            return 1
        fi
        sleep 2
    done
    pass "$REPLICAS replicas healthy (gRPC health SERVING), balancer SERVING on 127.0.0.1:$LB_PORT"
}
timed "wait for health" wait_healthy

# 4b. The LibreTranslate-compatible HTTP API through the balancer (docs/http-api.md)
check_http() {
    local answer
    answer=$(curl -sS --max-time 30 -X POST "http://127.0.0.1:$LB_HTTP_PORT/translate" \
        -H 'Content-Type: application/json' -d '{"q": ["Cancel", "Open File"], "source": "en", "target": "es"}') \
        || { fail "no answer from the HTTP API on 127.0.0.1:$LB_HTTP_PORT"; return 1; }
    echo "    $answer"
    python3 -c 'import json, sys; t = json.loads(sys.argv[1])["translatedText"]; sys.exit(not (isinstance(t, list) and len(t) == 2 and all(t)))' "$answer" \
        && pass "HTTP API through the balancer: POST /translate answered $answer" \
        || fail "unexpected HTTP answer: $answer"
}
timed "HTTP API" check_http

# 4c. The repository of two models, through the balancer: ListModels, a call naming each model
# (counted under its own model label in the replicas' /metrics), an unknown model refused.
client_image() {
    podman run --rm --network=host traductor-loadtest:latest "$@" --target "127.0.0.1:$LB_PORT" 2>&1 | grep -v systemd
    return "${PIPESTATUS[0]}"
}
model_calls() {  # MODEL: Translate* OK calls counted under model=MODEL by every replica together
    local c total=0 n
    for c in "${TRANSLATORS[@]}"; do
        n=$(podman exec "$c" python3 -c '
import re, sys, urllib.request
text = urllib.request.urlopen("http://127.0.0.1:9090/metrics", timeout=5).read().decode()
rows = [(dict(re.findall(r"(\w+)=\"([^\"]*)\"", labels)), float(v))
        for labels, v in re.findall(r"^traductor_requests_total\{([^}]*)\} (\S+)", text, re.M)]
print(int(sum(v for labels, v in rows if labels.get("model") == sys.argv[1] and labels.get("code") == "OK"
              and labels.get("rpc", "").startswith("Translate"))))' "$1" 2> /dev/null) || n=0
        total=$(( total + ${n:-0} ))
    done
    echo "$total"
}
# tests/stack_models_check.py imports traductor: run it in the serving image, not with the
# host's python3 (nothing of the project is installed on the host)
models_check() {
    podman run --rm -i --entrypoint python3 traductor:latest - "$@" < "$ROOT/tests/stack_models_check.py" 2>&1 \
        | grep -v systemd
    return "${PIPESTATUS[0]}"
}
check_models() {
    local listed answer rc before after text="Open File" first=""
    listed=$(client_image models --json) || { fail "ListModels through the balancer failed: $listed"; return 1; }
    if models_check "$listed" "$SECOND_MODEL"; then
        pass "ListModels through the balancer: the packaged models (en-es the default) and $SECOND_MODEL, all serving"
    else
        fail "ListModels through the balancer does not list the packaged models (en-es the default) and $SECOND_MODEL serving: $listed"
    fi
    for model in en-es "$SECOND_MODEL"; do
        before=$(model_calls "$model")
        if answer=$(client_image translate --model "$model" "$text") && [[ -n "$answer" ]]; then
            after=$(model_calls "$model")
            if (( after > before )); then
                pass "translate --model $model through the balancer: '$text' -> '$answer' (model=\"$model\" OK calls on the replicas: $before -> $after)"
            else
                fail "translate --model $model answered '$answer', but no replica counted it under model=\"$model\" ($before -> $after)"
            fi
            [[ -z "$first" ]] && first="$answer"
            [[ "$answer" == "$first" ]] || fail "the copy $SECOND_MODEL answered '$answer', en-es '$first'"
        else
            fail "translate --model $model through the balancer: $answer"
        fi
    done
    rc=0
    answer=$(client_image translate --model no-such-model "$text") || rc=$?
    if (( rc != 0 )) && [[ "$answer" == *NOT_FOUND* ]]; then
        pass "an unknown model is refused: $(tail -1 <<< "$answer")"
    else
        fail "translate --model no-such-model: exit $rc, $answer"
    fi
}
timed "two models" check_models

# 4d. Glossaries (DeepL API v2 through the balancer's HTTP port) in the shared `glossaries` volume:
# made through one replica, listed and applied by all, through the balancer and by each replica
# asked directly (inside it, on its own port 5000); concurrent creates and deletes lose nothing.
GLOSSARY_ID=""
glossary_check() { python3 "$ROOT/tests/stack_glossary_check.py" "$@"; }
on_replica() {  # CONTAINER ARGS...: the glossary checker inside a replica, against that replica only
    local c="$1"; shift
    podman exec -i "$c" python3 - http://127.0.0.1:5000 "$@" < "$ROOT/tests/stack_glossary_check.py" 2>&1 | grep -v systemd
    return "${PIPESTATUS[0]}"
}
glossary_upstreams() {  # replicas (addresses) the balancer sent /v2/translate calls with a glossary to
    podman logs "$(containers_of lb | head -1)" 2> /dev/null | grep '"POST /v2/translate ' \
        | grep -o 'upstream=[0-9.]*' | sort -u | wc -l
}
check_glossary_everywhere() {  # WHEN: the glossary listed and applied through the balancer and on every replica
    local when="$1" c ok=1 out
    mapfile -t TRANSLATORS < <(containers_of translator)
    if out=$(glossary_check "http://127.0.0.1:$LB_HTTP_PORT" check "$GLOSSARY_ID" --times 6 2>&1); then
        echo "$out"
    else
        echo "$out"; ok=0
    fi
    log "    through the balancer: /v2/translate calls went to $(glossary_upstreams) replica addresses so far (the balancer's access log; a restarted replica may get a new one)"
    for c in "${TRANSLATORS[@]}"; do
        if out=$(on_replica "$c" check "$GLOSSARY_ID"); then
            log "    $c (started $(podman inspect -f '{{.State.StartedAt}}' "$c" | cut -c12-19), restarts $(podman inspect -f '{{.RestartCount}}' "$c")), asked directly:"
            echo "$out"
        else
            log "    $c, asked directly:"; echo "$out"; ok=0
        fi
    done
    if (( ok )); then
        pass "glossary $GLOSSARY_ID $when: listed and applied through the balancer and by each of the ${#TRANSLATORS[@]} replicas asked directly"
    else
        fail "glossary $GLOSSARY_ID $when: not listed or not applied everywhere (lines above)"
    fi
}
check_glossaries() {
    local c owner out
    c="${TRANSLATORS[0]}"
    owner=$(podman exec "$c" sh -c 'stat -c "%u:%g %a" "$TRADUCTOR_GLOSSARY_DIR"; echo "$TRADUCTOR_GLOSSARY_DIR"' 2>&1 | grep -v systemd | tr '\n' ' ')
    log "    $c: TRADUCTOR_GLOSSARY_DIR and its owner: $owner"
    GLOSSARY_ID=$(glossary_check "http://127.0.0.1:$LB_HTTP_PORT" create 2>&1) || {
        fail "POST /v2/glossaries through the balancer: $GLOSSARY_ID"; GLOSSARY_ID=""; return 1; }
    log "    POST /v2/glossaries through the balancer: created $GLOSSARY_ID"
    check_glossary_everywhere "created through the balancer"
    (( $(glossary_upstreams) >= 2 )) || fail "the /v2/translate calls with the glossary all went to one replica"
    if out=$(glossary_check "http://127.0.0.1:$LB_HTTP_PORT" race --count 8 2>&1); then
        echo "$out"
        pass "8 glossaries created and deleted at once through the balancer (several replicas): none lost, none left"
    else
        echo "$out"
        fail "concurrent glossary creates/deletes through the balancer"
    fi
}
timed "glossaries" check_glossaries

# 5. The load test, as the compose service (profile loadtest), against lb:50051.
run_loadtest() {
    local rc=0
    compose --profile loadtest run --rm --no-deps -T loadtest > "$WORK/loadtest.log" 2>&1 || rc=$?
    grep -v systemd "$WORK/loadtest.log" | sed 's/^/    /' || true
    (( rc == 0 )) || fail "the loadtest container exited with status $rc"
}
timed "load test" run_loadtest

# 6. Checks
check_report() {
    python3 - "$REPORTS/loadtest.json" <<'EOF'
import json, sys
report = json.load(open(sys.argv[1]))
bad = []
for level in report["levels"]:
    errors = level.get("errors") or {}
    print(f"    {report['level_name']} {level['level']:g}: {level['requests']} requests, {level['ok']} ok, "
          f"{level['requests_per_second']:.1f} req/s, p50 {level['latency_seconds']['p50'] * 1000:.0f} ms, "
          f"p99 {level['latency_seconds']['p99'] * 1000:.0f} ms, errors {errors or 0}")
    if level["requests"] == 0:
        bad.append(f"level {level['level']}: no requests")
    if errors or level["ok"] != level["requests"]:
        bad.append(f"level {level['level']}: errors {errors}")
if bad:
    print("    " + "; ".join(bad))
    sys.exit(1)
EOF
}
if [[ -f "$REPORTS/loadtest.json" ]]; then
    if check_report; then pass "load-test report: every call OK"; else fail "load-test report has errors"; fi
else
    fail "no load-test report at $REPORTS/loadtest.json"
fi

# Each replica's own /metrics, read inside its container (no port is published per replica).
check_replicas() {
    local c count all_served=1
    for c in "${TRANSLATORS[@]}"; do
        count=$(replica_calls "$c") || count=0
        log "    $c: traductor_requests_total (Translate*) = $count"
        (( count > 0 )) || all_served=0
    done
    if (( all_served )); then pass "every replica served Translate calls"; else fail "a replica served no Translate calls"; fi
}
check_replicas

# The balancer's own view: which upstream address answered each call.
log "    calls per upstream in the balancer's access log:"
podman logs "$(containers_of lb | head -1)" 2>/dev/null | grep -o 'upstream=[0-9.:]*' | sort | uniq -c | sed 's/^/      /' || true

# Prometheus: every replica is a target, `up` is 1 for each (allow a few scrape intervals).
check_prometheus() {
    local deadline=$(( $(date +%s) + 60 )) out
    while :; do
        if out=$(python3 - "$PROMETHEUS_PORT" "$REPLICAS" <<'EOF'
import json, sys, urllib.parse, urllib.request
port, replicas = sys.argv[1], int(sys.argv[2])
base = f"http://127.0.0.1:{port}/api/v1/"
def get(path):
    return json.load(urllib.request.urlopen(base + path, timeout=5))["data"]
targets = [t for t in get("targets")["activeTargets"] if t["labels"]["job"] == "traductor"]
up = get("query?" + urllib.parse.urlencode({"query": 'up{job="traductor"}'}))["result"]
served = get("query?" + urllib.parse.urlencode({"query": 'sum by (instance) (traductor_requests_total{job="traductor", rpc=~"Translate.*"})'}))["result"]
lines = [f"targets: " + ", ".join(f"{t['labels']['instance']}={t['health']}" for t in targets),
         "up: " + ", ".join(f"{r['metric']['instance']}={r['value'][1]}" for r in up),
         "requests by instance: " + ", ".join(f"{r['metric']['instance']}={float(r['value'][1]):.0f}" for r in served)]
print("\n".join("    " + l for l in lines))
ok = (len(targets) == replicas and all(t["health"] == "up" for t in targets)
      and len(up) == replicas and all(r["value"][1] == "1" for r in up)
      and len(served) == replicas and all(float(r["value"][1]) > 0 for r in served))
sys.exit(0 if ok else 1)
EOF
        ); then
            echo "$out"
            pass "Prometheus scrapes all $REPLICAS replicas (targets up, up == 1, requests per instance > 0)"
            return
        fi
        if (( $(date +%s) > deadline )); then
            echo "$out"
            fail "Prometheus does not see all $REPLICAS replicas up"
            return
        fi
        sleep 5
    done
}
timed "prometheus checks" check_prometheus

# Scaling while running: one more replica; the balancer must pick it up without a restart.
check_scale_up() {
    local want=$(( REPLICAS + 1 )) deadline=$(( $(date +%s) + 120 )) line=""
    compose up -d --no-build --no-deps --scale "translator=$want" > "$WORK/scale.log" 2>&1 || {
        fail "compose up --scale translator=$want failed (see $WORK/scale.log)"; return; }
    while (( $(date +%s) < deadline )); do
        line=$(podman logs "$(containers_of lb | head -1)" 2>&1 | grep 'lb-entrypoint: replicas now' | tail -1 || true)
        if [[ $(wc -w <<< "${line#*replicas now:}") -eq $want ]]; then
            pass "scaled to $want replicas; the balancer now sends calls to all of them (${line#*: })"
            mapfile -t TRANSLATORS < <(containers_of translator)
            return
        fi
        sleep 2
    done
    fail "after scaling to $want, the balancer still lists: ${line:-its initial replicas}"
}
timed "scale up" check_scale_up

# Graceful stop under load: SIGTERM one replica in the middle of a short load test. It must
# exit by itself, with status 0, within the grace period: `podman stop -t STOP_GRACE` (9 s, as
# in docker-compose.yml) sends SIGKILL after it, and a replica killed so exits 137. The time podman stop took is shown, but it is
# not the criterion: on a busy machine podman's own work around the stop can take longer than
# the server (its log has the SIGTERM and "stopped" lines). The errors the clients saw meanwhile
# are reported (informational; check_rolling_restarts is the strict check of restarts).
check_drain() {
    local c="${TRANSLATORS[0]}" start took code pid rc=0 server_took  # an established replica, under load
    rm -f "$REPORTS/drain.json"
    compose --profile loadtest run --rm --no-deps -T loadtest loadtest --target=lb:50051 \
        --concurrency=4 --duration=12 --stream-fraction=0.5 --no-progress \
        --json-out=/reports/drain.json > "$WORK/drain.log" 2>&1 &
    pid=$!
    sleep 6
    start=$(date +%s.%N)
    podman stop -t "$STOP_GRACE" "$c" > /dev/null 2>&1
    took=$(python3 -c "import time; print(f'{time.time() - $start:.1f}')")
    code=$(podman inspect -f '{{.State.ExitCode}}' "$c")
    server_took=$(stop_time "$c")
    wait "$pid" || rc=$?
    if [[ "$code" == 0 && "$server_took" != *stalled* ]]; then
        pass "SIGTERM under load: $c exited 0 ${server_took}s after it, within its grace period (podman stop took ${took}s)"
    else
        fail "SIGTERM under load: $c exited with $code ${server_took}s after it (137: killed after the grace period; podman stop took ${took}s)"
    fi
    if [[ -f "$REPORTS/drain.json" ]]; then
        python3 - "$REPORTS/drain.json" <<'EOF'
import json, sys
(level,) = json.load(open(sys.argv[1]))["levels"]
print(f"    during the stop: {level['requests']} calls, {level['ok']} ok, errors {level.get('errors') or 0} (informational)")
EOF
    else
        log "    no drain report (loadtest exit status $rc)"
    fi
}
# Restarts and a crash under load (tests/compose/churn.sh), before the stop below takes a replica away.
timed "rolling restarts" check_rolling_restarts
timed "kill -9" check_kill
# The glossary after them: still listed and applied everywhere, by the restarted replicas (they
# read it back from the volume) and by the one added when scaling up (it never saw it made).
if [[ -n "$GLOSSARY_ID" ]]; then
    timed "glossaries after restarts" check_glossary_everywhere "after $RESTARTS rolling restarts and a kill -9"
fi

timed "stop under load" check_drain

(( ${#FAILURES[@]} == 0 ))
