#!/usr/bin/env bash
# Keys per caller on docker-compose.yml under Podman: two translator replicas behind the gRPC
# balancer, sharing the `redis` service (profile `keys`) as their key store (docs/keys.md,
# docs/compose.md "Keys per caller").
#
#   tests/compose/keys.sh
#
# 1. Podman as tests/compose/run.sh sets it up (containers.conf, podman-compose 1.6 in a venv, the
#    imported Debian bookworm base image); builds, once, the images it needs and lacks:
#    traductor, traductor-lb and the Redis image of deploy/redis (Debian's redis-server: no
#    registry here; REDIS_IMAGE names it, the official image stays the compose file's default)
# 2. starts models + glossaries, then redis, translator x2 and lb with
#    TRADUCTOR_KEYS_REDIS=redis://redis:6379/0 and an administrator's TRADUCTOR_TOKEN, as
#    docs/compose.md says; waits until both replicas are healthy and the key store answers
#    (traductor_key_store_up 1 on each)
# 3. makes two keys with `traductor keys add` in replica 1: one without a request limit, one with
#    RATE requests a minute
# 4. tests/stack_keys_check.py against both replicas' HTTP APIs asked directly (and the
#    balancer): refused without a key; the key works on both; a glossary made with it is
#    listed and used on both, and another key cannot list, read, use or delete it on either (404);
#    RATE across both (+-1); /v2/usage
#    equals the characters sent; the key revoked with `traductor keys revoke` in replica 2 is
#    refused by both within a second of Redis' write (Redis' MONITOR clock)
# 5. gRPC through the balancer (traductor-client in the serving image): no key UNAUTHENTICATED,
#    the revoked key UNAUTHENTICATED, the exhausted key RESOURCE_EXHAUSTED, the token OK; each
#    replica's metrics count the rate-limited key's accepted calls by its name, and the sum is
#    what the check saw; no secret in any container's log or in the metrics
# 6. Redis stopped: a stored key gets 503 from both replicas, the token still works,
#    traductor_key_store_up 0, gRPC health traductor.keys NOT_SERVING (the server's own SERVING);
#    Redis started again (same volume): the key works again on both, traductor.keys SERVING
# 7. prints a summary and tears the stack down (trap)
#
# Environment (optional): RATE=8, BUILD=1 (rebuild the images even when present), KEEP_STACK=1,
# REDIS_IMAGE (default localhost/traductor-redis:bookworm, built from deploy/redis),
# COMPOSE_WORK (default /tmp/traductor-compose, shared with run.sh). Exit status 0 when every
# check passed.
set -Eeuo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"

REPLICAS=2
RATE="${RATE:-8}"
export BASE_IMAGE="${BASE_IMAGE:-localhost/debian-python:bookworm}"
export REDIS_IMAGE="${REDIS_IMAGE:-localhost/traductor-redis:bookworm}"
WORK="${COMPOSE_WORK:-/tmp/traductor-compose}"
PROJECT="traductor-keys"
PODMAN_COMPOSE_VERSION="1.6.0"   # Debian's 1.0.3 ignores `profiles` and `--scale`

# shellcheck source=tests/compose/podman.sh
source "$ROOT/tests/compose/podman.sh"

# ---------------------------------------------------------------------------------------------
# 1. Podman, the base image, the images
# setup_podman, setup_base_image: tests/compose/podman.sh

# One image at a time, niced, with the host's network (pip and apt through the proxy).
build() {  # TAG CONTEXT [DOCKERFILE]
    if [[ "${BUILD:-0}" != 1 ]] && podman image exists "$1"; then
        log "    $1 present (BUILD=1 rebuilds it)"
        return
    fi
    log "    building $1"
    nice -n 19 podman build --network=host --format docker --build-arg "BASE_IMAGE=$BASE_IMAGE" --quiet \
        -t "$1" ${3:+-f "$3"} "$2" > /dev/null
}
build_images() {
    build traductor:latest . Dockerfile
    build traductor-lb:latest deploy/lb
    [[ "$REDIS_IMAGE" == localhost/traductor-redis:* ]] && build "$REDIS_IMAGE" deploy/redis
    podman images --format '    {{.Repository}}:{{.Tag}} {{.Size}}' | grep -E 'traductor|redis'
}

compose() { "$PC" -p "$PROJECT" "$@"; }
containers_of() {
    podman ps -a --format '{{.Names}}' --filter "label=com.docker.compose.project=$PROJECT" \
        --filter "label=com.docker.compose.service=$1" | sort
}
address() { podman inspect -f '{{range .NetworkSettings.Networks}}{{.IPAddress}}{{end}}' "$1"; }
metric() {  # CONTAINER NAME [LABEL=VALUE]: the sum of the replica's samples of NAME (with that label)
    podman exec "$1" python3 -c '
import re, sys, urllib.request
text = urllib.request.urlopen("http://127.0.0.1:9090/metrics", timeout=5).read().decode()
rows = [(dict(re.findall(r"(\w+)=\"([^\"]*)\"", labels or "")), float(v))
        for labels, v in re.findall(r"^" + sys.argv[1] + r"(?:\{([^}]*)\})? (\S+)$", text, re.M)]
want = dict([sys.argv[2].split("=", 1)]) if len(sys.argv) > 2 else {}
print(int(sum(v for labels, v in rows if all(labels.get(k) == w for k, w in want.items()))))' "${@:2}" 2> /dev/null
}

STACK_UP=0
teardown() {
    local status=$?
    set +e
    echo
    echo "=== summary (compose, $REPLICAS replicas sharing redis, RATE=$RATE)"
    (( ${#SUMMARY[@]} )) && printf '  %s\n' "${SUMMARY[@]}"
    (( ${#FAILURES[@]} )) && printf '  FAIL  %s\n' "${FAILURES[@]}"
    if (( STACK_UP )); then
        mkdir -p "$WORK/keys-logs"
        for c in $(podman ps -a --format '{{.Names}}' --filter "label=com.docker.compose.project=$PROJECT"); do
            podman logs "$c" > "$WORK/keys-logs/$c.log" 2>&1
        done
        log "container logs saved in $WORK/keys-logs/"
        if [[ "${KEEP_STACK:-0}" == 1 ]]; then
            log "KEEP_STACK=1: left running (CONTAINERS_CONF=$CONTAINERS_CONF $PC -p $PROJECT --profile keys down -v)"
        else
            podman ps -q --filter "label=com.docker.compose.project=$PROJECT" | xargs -r podman stop -t 10 > /dev/null 2>&1
            compose --profile keys down -v -t 10 > "$WORK/keys-down.log" 2>&1
            podman ps -a -q --filter "label=com.docker.compose.project=$PROJECT" | xargs -r podman rm -f > /dev/null 2>&1
            podman network rm -f "${PROJECT}_default" > /dev/null 2>&1
            podman volume rm -f "${PROJECT}_models" "${PROJECT}_glossaries" "${PROJECT}_redis-data" \
                "${PROJECT}_prometheus-data" > /dev/null 2>&1
            log "torn down"
        fi
    fi
    log "total $(( $(date +%s) - T0 ))s"
    (( status == 0 && ${#FAILURES[@]} == 0 )) && exit 0
    exit $(( status ? status : 1 ))
}
trap teardown EXIT
trap 'exit 130' INT TERM

log "== podman and images"
setup_podman
setup_base_image
build_images

# ---------------------------------------------------------------------------------------------
# 2. The stack with keys on, as docs/compose.md shows it
log "== compose --profile keys up (TRADUCTOR_KEYS_REDIS=redis://redis:6379/0)"
export TRADUCTOR_KEYS_REDIS="redis://redis:6379/0"
TRADUCTOR_TOKEN="adm_$(python3 -c 'import secrets; print(secrets.token_hex(16))')"
export TRADUCTOR_TOKEN LB_PORT LB_HTTP_PORT
LB_PORT=$(free_port)
LB_HTTP_PORT=$(free_port)
compose --profile keys down -v -t 5 > /dev/null 2>&1 || true
STACK_UP=1
# as run.sh: the one-shot services to completion first, then the rest with --no-deps (Podman 4.3
# would otherwise start them again with every replica, through --requires)
compose --profile keys up -d --no-build models glossaries > "$WORK/keys-up.log" 2>&1 || { cat "$WORK/keys-up.log"; exit 1; }
podman wait "$(containers_of models | head -1)" "$(containers_of glossaries | head -1)" > /dev/null
compose --profile keys up -d --no-build --no-deps --scale "translator=$REPLICAS" redis translator lb \
    >> "$WORK/keys-up.log" 2>&1 || { cat "$WORK/keys-up.log"; exit 1; }
podman ps --filter "label=com.docker.compose.project=$PROJECT" --format '    {{.Names}}  {{.Image}}  {{.Status}}'
REDIS=$(containers_of redis | head -1)
mapfile -t TRANSLATORS < <(containers_of translator)
(( ${#TRANSLATORS[@]} == REPLICAS )) || { fail "expected $REPLICAS replicas, found ${TRANSLATORS[*]}"; exit 1; }
log "    redis: $(podman exec "$REDIS" redis-server --version | cut -d' ' -f1-3), user $(podman exec "$REDIS" id -u):$(podman exec "$REDIS" id -g), data dir $(podman exec "$REDIS" stat -c '%u:%g %a' /data)"

wait_ready() {
    local deadline=$(( $(date +%s) + 300 )) c ready
    until [[ "$(podman exec "$REDIS" redis-cli ping 2> /dev/null)" == PONG ]]; do
        (( $(date +%s) < deadline )) || { fail "redis does not answer PONG"; return 1; }
        sleep 1
    done
    pass "redis ($REDIS_IMAGE) answers PONG on the compose network's redis:6379"
    # the compose file's health check (Podman runs it from systemd timers, absent here: run it once)
    if podman healthcheck run "$REDIS" > /dev/null 2>&1; then
        pass "the redis service's health check (redis-cli ping) passes"
    else
        fail "the redis service's health check fails: $(podman inspect -f '{{.Config.Healthcheck}}' "$REDIS" 2>&1)"
    fi
    while :; do
        ready=0
        for c in "${TRANSLATORS[@]}"; do
            podman exec "$c" traductor-client health --target 127.0.0.1:50051 > /dev/null 2>&1 \
                && [[ "$(metric "$c" traductor_key_store_up)" == 1 ]] && ready=$(( ready + 1 ))
        done
        (( ready == REPLICAS )) && break
        (( $(date +%s) < deadline )) || { fail "only $ready of $REPLICAS replicas SERVING with their key store up"; return 1; }
        sleep 3
    done
    pass "$REPLICAS replicas SERVING, each with traductor_key_store_up 1 (TRADUCTOR_KEYS_REDIS=$(podman exec "${TRANSLATORS[0]}" printenv TRADUCTOR_KEYS_REDIS))"
    until curl -s -o /dev/null "http://127.0.0.1:$LB_HTTP_PORT/languages"; do
        (( $(date +%s) < deadline )) || { fail "the balancer's HTTP port does not answer"; return 1; }
        sleep 2
    done
}
wait_ready

# ---------------------------------------------------------------------------------------------
# 3. Keys, made in replica 1 with the command docs/keys.md gives
log "== traductor keys add (in ${TRANSLATORS[0]})"
secret_of() { python3 -c 'import json, sys; print(json.loads(sys.stdin.read().splitlines()[-1])["secret"])'; }
ADDED=$(podman exec "${TRANSLATORS[0]}" traductor keys add stack-a --chars-per-month 1000000)
KEY_A=$(secret_of <<< "$ADDED")
log "    $(sed 's/"secret": "[^"]*"/"secret": "trk_…"/' <<< "$ADDED")"
ADDED=$(podman exec "${TRANSLATORS[0]}" traductor keys add stack-rate --requests-per-minute "$RATE")
KEY_RATE=$(secret_of <<< "$ADDED")
log "    $(sed 's/"secret": "[^"]*"/"secret": "trk_…"/' <<< "$ADDED")"
ADDED=$(podman exec "${TRANSLATORS[1]}" traductor keys add stack-c)
KEY_C=$(secret_of <<< "$ADDED")
log "    (in ${TRANSLATORS[1]}) $(sed 's/"secret": "[^"]*"/"secret": "trk_…"/' <<< "$ADDED")"
log "    traductor keys list (in ${TRANSLATORS[1]}):"
podman exec "${TRANSLATORS[1]}" traductor keys list | sed 's/^/      /'

# ---------------------------------------------------------------------------------------------
# 4. The shared keys, each replica asked directly (the host reaches the containers' addresses)
URLS=()
for c in "${TRANSLATORS[@]}"; do URLS+=("http://$(address "$c"):5000"); done
log "== tests/stack_keys_check.py on ${URLS[*]} and the balancer"
if python3 tests/stack_keys_check.py --key "$KEY_A" --rate-key "$KEY_RATE" --rate "$RATE" \
    --revoke "podman exec ${TRANSLATORS[1]} traductor keys revoke stack-a" \
    --monitor "podman exec $REDIS timeout 60 redis-cli monitor" \
    --other-key "$KEY_C" --admin "$TRADUCTOR_TOKEN" \
    --balancer "http://127.0.0.1:$LB_HTTP_PORT" "${URLS[@]}" 2>&1 | tee "$WORK/keys-check.log"; then
    pass "keys shared by both replicas: a key made in one works on both and through the balancer; its glossary hidden from another key on both (404); RATE=$RATE a minute held across them; /v2/usage equals the characters sent; revoked in one, refused by both within a second (tests/stack_keys_check.py)"
else
    fail "tests/stack_keys_check.py (lines above)"
fi

# ---------------------------------------------------------------------------------------------
# 5. gRPC through the balancer, metrics, secrets
log "== gRPC through the balancer (127.0.0.1:$LB_PORT)"
grpc() {  # KEY|-: traductor-client translate through the balancer; prints its output, returns its status
    local token=()
    [[ "$1" != - ]] && token=(--token "$1")
    podman run --rm --network=host --entrypoint traductor-client traductor:latest translate \
        --target "127.0.0.1:$LB_PORT" "${token[@]}" "Open the file" 2>&1 | grep -v systemd | tail -1
    return "${PIPESTATUS[0]}"
}
expect_grpc() {  # WHAT KEY EXPECTED(OK or a status name)
    local out rc=0
    out=$(grpc "$2") || rc=$?
    if [[ "$3" == OK && $rc == 0 ]] || [[ "$3" != OK && $rc != 0 && "$out" == *"$3"* ]]; then
        pass "gRPC through the balancer with $1: $3 ($out)"
    else
        fail "gRPC through the balancer with $1: exit $rc, $out (expected $3)"
    fi
}
expect_grpc "no key" - UNAUTHENTICATED
expect_grpc "the revoked key" "$KEY_A" UNAUTHENTICATED
expect_grpc "the key over its $RATE a minute" "$KEY_RATE" RESOURCE_EXHAUSTED
expect_grpc "the administrator's TRADUCTOR_TOKEN" "$TRADUCTOR_TOKEN" OK
expect_grpc "a third key (made in replica 2)" "$KEY_C" OK

log "== metrics and logs"
total=0
for c in "${TRANSLATORS[@]}"; do
    n=$(metric "$c" traductor_key_requests_total key=stack-rate)
    r=$(metric "$c" traductor_key_refusals_total key=stack-rate)
    log "    $c: traductor_key_requests_total{key=\"stack-rate\"} $n, refusals $r"
    total=$(( total + n ))
done
seen=$(grep -o 'accepted [0-9]* of' "$WORK/keys-check.log" | grep -o '[0-9]*' | head -1)
if [[ -n "$seen" ]] && (( total == seen )); then
    pass "the replicas' metrics count stack-rate's accepted calls by name: $total in all, as the check saw"
else
    fail "the replicas' metrics count $total accepted calls of stack-rate, the check saw ${seen:-none}"
fi
leaks=0
for c in $(podman ps -a --format '{{.Names}}' --filter "label=com.docker.compose.project=$PROJECT"); do
    for s in "$KEY_A" "$KEY_RATE" "$KEY_C" "$TRADUCTOR_TOKEN"; do
        podman logs "$c" 2>&1 | grep -qF "$s" && { fail "a secret in $c's log"; leaks=1; }
    done
done
for c in "${TRANSLATORS[@]}"; do
    podman exec "$c" python3 -c 'import urllib.request; print(urllib.request.urlopen("http://127.0.0.1:9090/metrics").read().decode())' \
        > "$WORK/keys-metrics-$c.txt" 2> /dev/null
    for s in "$KEY_A" "$KEY_RATE" "$KEY_C" "$TRADUCTOR_TOKEN"; do
        grep -qF "$s" "$WORK/keys-metrics-$c.txt" && { fail "a secret in $c's metrics"; leaks=1; }
    done
done
(( leaks )) || pass "no secret (3 keys, the token) in any container's log or in the replicas' metrics"

# ---------------------------------------------------------------------------------------------
# 6. Redis down: fail closed; up again: the keys are still there (append-only file, redis-data)
log "== redis stopped"
http_status() {  # URL KEY: the status of POST /translate with api_key
    curl -s -o /dev/null -w '%{http_code}' --max-time 30 -X POST "$1/translate" -H 'Content-Type: application/json' \
        -d "{\"q\": \"Cancel\", \"source\": \"en\", \"target\": \"es\", \"api_key\": \"$2\"}"
}
health_of() {  # CONTAINER SERVICE: "<status word> rc=<exit>" of gRPC health for SERVICE ("" the server)
    local out rc=0
    out=$(podman exec "$1" traductor-client health --target 127.0.0.1:50051 --service "$2" 2>&1) || rc=$?
    echo "$(grep -oE 'NOT_SERVING|SERVING|UNKNOWN|NOT_FOUND' <<< "$out" | head -1) rc=$rc"
}
podman stop -t 10 "$REDIS" > /dev/null 2>&1
sleep 2   # a replica keeps a key it read for 0.5 s; its store watch pings every second
down_ok=1
for i in "${!URLS[@]}"; do
    s=$(http_status "${URLS[$i]}" "$KEY_C") t=$(http_status "${URLS[$i]}" "$TRADUCTOR_TOKEN")
    up=$(metric "${TRANSLATORS[$i]}" traductor_key_store_up)
    keys_health=$(health_of "${TRANSLATORS[$i]}" traductor.keys) server_health=$(health_of "${TRANSLATORS[$i]}" "")
    log "    ${URLS[$i]}: stored key $s, token $t, traductor_key_store_up $up; health traductor.keys: $keys_health, the server's: $server_health"
    [[ "$s" == 503 && "$t" == 200 && "$up" == 0 && "$keys_health" == "NOT_SERVING rc=1" \
       && "$server_health" == "SERVING rc=0" ]] || down_ok=0
done
(( down_ok )) && pass "redis stopped: both replicas refuse a stored key with 503, the token still gets 200, traductor_key_store_up 0, health traductor.keys NOT_SERVING while the server's stays SERVING (the balancer keeps them)" \
    || fail "redis stopped: not 503 / 200 / 0 / NOT_SERVING / SERVING on every replica (lines above)"
log "== redis started again"
podman start "$REDIS" > /dev/null 2>&1
deadline=$(( $(date +%s) + 60 ))
until [[ "$(http_status "${URLS[0]}" "$KEY_C")" == 200 && "$(http_status "${URLS[1]}" "$KEY_C")" == 200 ]]; do
    (( $(date +%s) < deadline )) || break
    sleep 1
done
back=()
for i in "${!URLS[@]}"; do
    back+=("$(http_status "${URLS[$i]}" "$KEY_C")/$(metric "${TRANSLATORS[$i]}" traductor_key_store_up)/$(health_of "${TRANSLATORS[$i]}" traductor.keys | tr ' ' /)")
done
if [[ "${back[*]}" == "200/1/SERVING/rc=0 200/1/SERVING/rc=0" ]]; then
    pass "redis started again on its volume: the key made before works on both replicas again (200, key store up 1, health traductor.keys SERVING); keys listed: $(podman exec "${TRANSLATORS[0]}" traductor keys list | wc -l)"
else
    fail "after redis came back: status/key_store_up per replica ${back[*]}"
fi

(( ${#FAILURES[@]} == 0 ))
