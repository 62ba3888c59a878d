#!/usr/bin/env bash
# Run the Kubernetes manifests of deploy/kubernetes for real, with `podman kube play`.
#
#   tests/kubernetes/run.sh
#
# No cluster can run on these machines; Podman plays the kinds it knows: Deployment, Service
# (accepted, no DNS or virtual IP), ConfigMap; Podman 4.3 cannot deliver a played Secret, so the
# Secrets' data goes in as a Podman secret and a folder (podman_manifests.py says how). The steps:
#  1. Podman (packages, containers.conf) and a Debian bookworm + python3 base image (debootstrap)
#  2. builds the two images the kustomization names (traductor, traductor-lb) from the repository,
#     and the key store's image from deploy/redis (Debian's redis-server: no registry here;
#     REDIS_IMAGE, default localhost/traductor-redis:bookworm, stands for the pinned official one)
#  3. renders the kustomization and adapts it for podman (tests/kubernetes/podman_manifests.py
#     prints every change), makes a token and a self-signed TLS certificate
#  3b. plays the key store (the ConfigMap sets TRADUCTOR_KEYS_REDIS: keys per caller are on): the
#     Deployment traductor-redis on its claim; the translator pods reach it by the Service's name
#     through a hostAliases entry (podman has no Service DNS) naming the fixed address the pod is
#     played on (--ip, standing for the Service's virtual IP); checks its securityContext
#  4. plays the translator (ConfigMap + Deployment + Services, the token from the Secret); checks what
#     the kubelet's gRPC probes would ask: grpc.health.v1 Check for "" and traductor.v1.Translator
#     SERVING, without a token; the pod's user, read-only root, capabilities, no-new-privileges;
#     its init container fills the `models` volume with a repository of two models (the packaged
#     en-es and a copy of it named SECOND_MODEL, en-es-b): ListModels lists both, a call naming
#     each is answered and counted under its model label, an unknown model is NOT_FOUND
#  5. plays the balancer (Deployment + Service, the TLS files) in front of it; a call without the
#     token is refused UNAUTHENTICATED, a load test through the balancer (TLS + token) has no error;
#     the HTTP API (POST /translate with curl) on the pod's http-api port and through the
#     balancer's (HTTPS + api_key), and a request without the key refused 403
#  6. the metrics the autoscaler reads, on the translator's metrics port
#  7. glossaries on the claim traductor-glossaries (a named volume here): a second translator pod
#     (the Deployment's second replica, played as traductor-b) mounts the same claim; a glossary
#     created through the balancer (DeepL API, on the first pod) is listed and applied by both
#     pods, asked directly; concurrent creates and deletes spread over both lose nothing
#  8. SIGTERM under load with the Deployment's grace period, SIGTERMS times (10): each time the
#     translator drains and exits 0 in time, without a stall report, and is started again
#  9. the glossary outlives the pods: the first pod taken down and played again (a new pod, as a
#     rollout makes), the second one's server killed with SIGKILL and restarted by its restart
#     policy; both list and apply it again
#  7b. (once the second pod is up) keys per caller on the two pods sharing Redis
#     (tests/stack_keys_check.py): keys made with `traductor keys add` in a pod work on both and
#     through the balancer (HTTPS, gRPC), a limit of KEYS_RATE (8) a minute holds across them,
#     /v2/usage equals the characters sent, a key revoked in one pod is refused by both within a
#     second of Redis' write; the key store up on both (traductor_key_store_up 1)
#  9b. after the restarts of 8 and 9: a key made before is still accepted by both pods (kept in
#     Redis, reached by the new pod through its hostAliases); the Redis container stopped: both
#     pods answer a stored key 503, the token 200, traductor_key_store_up 0; started again on its
#     claim: the key is accepted again (the append-only file kept it)
# 10. prints a summary and tears everything down, whatever happened (trap)
#
# Environment (optional): LOADTEST_DURATION (10), LOADTEST_CONCURRENCY (1,8), SECOND_MODEL (en-es-b), SIGTERMS (10), BUILD=0 to reuse
# the images, K8S_WORK (scratch folder, default /tmp/traductor-k8s), COMPOSE_WORK (shared with
# tests/compose/run.sh: containers.conf and the base image's rootfs, default /tmp/traductor-compose).
# Exit status: 0 when every check passed.
set -Eeuo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"

LOADTEST_DURATION="${LOADTEST_DURATION:-10}"
LOADTEST_CONCURRENCY="${LOADTEST_CONCURRENCY:-1,8}"
export SECOND_MODEL="${SECOND_MODEL:-en-es-b}"
BASE_IMAGE="${BASE_IMAGE:-localhost/debian-python:bookworm}"
export REDIS_IMAGE="${REDIS_IMAGE:-localhost/traductor-redis:bookworm}"
KEYS_RATE="${KEYS_RATE:-8}"
WORK="${K8S_WORK:-/tmp/traductor-k8s}"
COMPOSE_WORK="${COMPOSE_WORK:-/tmp/traductor-compose}"

# 1. Podman and the base image: the stacks' set-up (log/fail/pass, free_port, setup_podman,
# setup_base_image), its containers.conf and rootfs in COMPOSE_WORK, no podman-compose.
PODMAN_WORK="$COMPOSE_WORK"
PODMAN_COMPOSE_VERSION=""
# shellcheck source=tests/compose/podman.sh
source "$ROOT/tests/compose/podman.sh"
mkdir -p "$WORK"
# the checks call the client on this machine: without it every probe would wait until its timeout
command -v traductor-client > /dev/null || { echo "run.sh: traductor-client is not on PATH (source .venv/bin/activate)" >&2; exit 2; }

# 2. The images, tagged as the kustomization names them.
image_tag() { python3 -c 'import sys, yaml; print({i["name"]: i["newTag"] for i in yaml.safe_load(open(sys.argv[1]))["images"]}[sys.argv[2]])' deploy/kubernetes/kustomization.yaml "$1"; }
build_images() {
    local common=(--network=host --format docker --build-arg "BASE_IMAGE=$BASE_IMAGE" --quiet)
    nice -n 19 podman build "${common[@]}" -t "traductor:$(image_tag traductor)" -f Dockerfile . > /dev/null
    nice -n 19 podman build "${common[@]}" -t "traductor-lb:$(image_tag traductor-lb)" deploy/lb > /dev/null
    nice -n 19 podman build "${common[@]}" -t "$REDIS_IMAGE" deploy/redis > /dev/null
    podman images --format '    {{.Repository}}:{{.Tag}} {{.Size}}' | grep traductor
}

# ---------------------------------------------------------------------------------------------
PLAYED=()
teardown() {
    local status=$?
    set +e
    for file in "${PLAYED[@]}"; do
        podman kube down "$file" > /dev/null 2>&1
    done
    podman secret rm traductor-auth traductor-tls > /dev/null 2>&1
    # the named volumes of the pods (emptyDirs, the glossary claim), not every unused volume
    [[ -f "$WORK/volumes" ]] && xargs -r podman volume rm -f < "$WORK/volumes" > /dev/null 2>&1
    echo
    echo "=== summary"
    (( ${#SUMMARY[@]} )) && printf '  %s\n' "${SUMMARY[@]}"
    (( ${#FAILURES[@]} )) && printf '  FAIL  %s\n' "${FAILURES[@]}"
    log "torn down; total $(( $(date +%s) - T0 ))s"
    (( status == 0 && ${#FAILURES[@]} == 0 )) && exit 0
    exit $(( status ? status : 1 ))
}
trap teardown EXIT
trap 'exit 130' INT TERM

log "== podman"; setup_podman; setup_base_image
if [[ "${BUILD:-1}" == 0 ]]; then log "BUILD=0: reusing the images"; else log "== build images"; build_images; fi

# 3. Manifests, token, certificate
log "== manifests"
rm -rf "$WORK" && mkdir -p "$WORK"
GRPC_PORT=$(free_port) METRICS_PORT=$(free_port) HTTP_PORT=$(free_port) LB_PORT=$(free_port) LB_HTTP_PORT=$(free_port)
B_GRPC_PORT=$(free_port) B_METRICS_PORT=$(free_port) B_HTTP_PORT=$(free_port) REDIS_PORT=$(free_port)
TOKEN=$(python3 -c 'import secrets; print(secrets.token_hex(16))')
openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj "/CN=localhost" -addext "subjectAltName=DNS:localhost" \
    -keyout "$WORK/tls.key" -out "$WORK/tls.crt" 2> /dev/null
python3 tests/kubernetes/podman_manifests.py "$WORK" "$GRPC_PORT" "$METRICS_PORT" "$HTTP_PORT" "$LB_PORT" \
    "$LB_HTTP_PORT" "$TOKEN" "$WORK/tls.crt" "$WORK/tls.key" "$B_GRPC_PORT" "$B_METRICS_PORT" "$B_HTTP_PORT" "$REDIS_PORT"
podman secret rm traductor-auth > /dev/null 2>&1 || true
podman secret create traductor-auth "$WORK/auth.json" > /dev/null

source "$ROOT/tests/kubernetes/checks.sh"

# 4. The translator (after the glossary claim it mounts: a named volume)
log "== play the glossary claim"
PLAYED+=("$WORK/glossaries.yaml")
podman kube play "$WORK/glossaries.yaml" > "$WORK/play-glossaries.log" 2>&1 || {
    cat "$WORK/play-glossaries.log"; fail "podman kube play glossaries.yaml"; exit 1; }
log "== play the key store (traductor-redis)"
# A fixed address for the Redis pod, as a Service's virtual IP is fixed: a pod played by kube play
# stops with its last container (its exit policy) and would come back on another address, which
# the translators' hostAliases would no longer name (seen: the Redis container stopped and started
# again, its pod got a new address and the translators timed out). An unused one near the top of
# kube play's network (made here if this is its first use), and a fixed MAC address with it: with
# a new MAC on the same address, the translators kept the old one in their neighbour (ARP) cache
# and reached the restarted Redis only 40 s later (seen; a Service's IP has no such cache).
KUBE_NET=podman-default-kube-network
podman network exists "$KUBE_NET" || podman network create "$KUBE_NET" > /dev/null
REDIS_IP=$(python3 -c '
import ipaddress, sys
net, used = ipaddress.ip_network(sys.argv[1]), set(sys.argv[2].split())
print(next(str(net.broadcast_address - i) for i in range(6, 60) if str(net.broadcast_address - i) not in used))' \
    "$(podman network inspect -f '{{range .Subnets}}{{.Subnet}}{{end}}' "$KUBE_NET")" \
    "$(podman ps -a -q | xargs -r podman inspect -f '{{range .NetworkSettings.Networks}}{{.IPAddress}} {{end}}')")
PLAYED+=("$WORK/redis.yaml")
REDIS_MAC="02:74:72:64:00:01"   # locally administered
podman kube play --ip "$REDIS_IP" --mac-address "$REDIS_MAC" "$WORK/redis.yaml" > "$WORK/play-redis.log" 2>&1 || {
    cat "$WORK/play-redis.log"; fail "podman kube play redis.yaml"; exit 1; }
REDIS=$(podman ps --format '{{.Names}}' | grep -- '^traductor-redis-pod-.*-redis$' | head -1)
sed -i "s|ip: REDIS_POD_IP|ip: $REDIS_IP|" "$WORK/translator.yaml" "$WORK/translator-b.yaml"
log "    container $REDIS at $(podman inspect -f '{{range .NetworkSettings.Networks}}{{.IPAddress}}{{end}}' "$REDIS") (kube play --ip $REDIS_IP --mac-address $REDIS_MAC, in $KUBE_NET); hostAliases traductor-redis -> $REDIS_IP in both translator pods"
check_key_store_pod
log "== play the translator"
PLAYED+=("$WORK/translator.yaml")
nice -n 19 podman kube play "$WORK/translator.yaml" > "$WORK/play-translator.log" 2>&1 || {
    cat "$WORK/play-translator.log"; fail "podman kube play translator.yaml"; exit 1; }
TRANSLATOR=$(podman ps --format '{{.Names}}' | grep -- '-translator$' | head -1)
log "    container $TRANSLATOR"
check_probes_answer
check_security "$TRANSLATOR" 10001

# 5. The balancer in front of it (podman has no Service DNS: it gets the pod's address)
log "== play the balancer"
TRANSLATOR_IP=$(podman inspect -f '{{range .NetworkSettings.Networks}}{{.IPAddress}}{{end}}' "$(podman pod inspect -f '{{.InfraContainerID}}' "$(podman inspect -f '{{.Pod}}' "$TRANSLATOR")")")
sed -i "s|value: traductor-replicas|value: $TRANSLATOR_IP|" "$WORK/balancer.yaml"
log "    UPSTREAM_HOST: traductor-replicas -> $TRANSLATOR_IP (the translator pod)"
PLAYED+=("$WORK/balancer.yaml")
nice -n 19 podman kube play "$WORK/balancer.yaml" > "$WORK/play-balancer.log" 2>&1 || {
    cat "$WORK/play-balancer.log"; fail "podman kube play balancer.yaml"; exit 1; }
BALANCER=$(podman ps --format '{{.Names}}' | grep -- '-balancer$' | head -1)
check_security "$BALANCER" 33
check_through_balancer
check_models
check_http_api
check_loadtest

# 6. Metrics, 7. glossaries on a second pod, 8. SIGTERM, 9. the glossary after the pods' restarts
check_metrics
check_glossaries_shared
check_keys_shared
check_sigterm
check_glossaries_kept
check_keys_kept
(( ${#FAILURES[@]} == 0 ))
