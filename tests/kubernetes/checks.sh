# The checks of tests/kubernetes/run.sh (sourced by it: uses its log/pass/fail, WORK, the ports,
# TOKEN, TRANSLATOR and BALANCER).

client() { traductor-client "$@" --timeout 30; }
# through the balancer: TLS with the test certificate
via_lb() { local cmd="$1"; shift; client "$cmd" --target "127.0.0.1:$LB_PORT" --ca "$WORK/tls.crt" --server-name localhost "$@"; }

# What the kubelet's grpc probes ask (startup/liveness: service "", readiness:
# traductor.v1.Translator), on the pod's gRPC port, in plaintext and without a token.
check_probes_answer() {
    local deadline=$(( $(date +%s) + 240 )) started=$(date +%s)
    until env -u TRADUCTOR_TOKEN traductor-client health --target "127.0.0.1:$GRPC_PORT" --timeout 3 > /dev/null 2>&1; do
        if [[ "$(podman inspect -f '{{.State.Running}}' "$TRANSLATOR")" != true ]] || (( $(date +%s) > deadline )); then
            podman logs --tail 30 "$TRANSLATOR" 2>&1 | sed 's/^/    /'
            fail "the translator never answered SERVING on 127.0.0.1:$GRPC_PORT"
            return 1
        fi
        sleep 2
    done
    local whole named
    whole=$(env -u TRADUCTOR_TOKEN traductor-client health --target "127.0.0.1:$GRPC_PORT" 2>&1)
    named=$(env -u TRADUCTOR_TOKEN traductor-client health --target "127.0.0.1:$GRPC_PORT" --service traductor.v1.Translator 2>&1)
    log "    health \"\": $whole; health traductor.v1.Translator: $named ($(( $(date +%s) - started ))s after play)"
    if [[ "$whole" == *SERVING* && "$named" == *SERVING* && "$whole" != *NOT_SERVING* && "$named" != *NOT_SERVING* ]]; then
        pass "grpc.health.v1 answers SERVING for \"\" and traductor.v1.Translator without a token (the probes' calls)"
    else
        fail "health: \"$whole\" / \"$named\""
    fi
}

# securityContext as applied: uid, read-only root with a writable /tmp, capabilities,
# no_new_privs and a seccomp filter (read from the container's PID 1).
check_security() {
    local c="$1" uid="$2" facts
    facts=$(podman exec "$c" sh -c 'echo "uid=$(id -u)"; (touch /probe.$$ 2> /dev/null && echo root=rw) || echo root=ro;
        (touch /tmp/probe.$$ && rm /tmp/probe.$$ && echo tmp=rw) || echo tmp=ro;
        grep -E "^(CapEff|NoNewPrivs|Seccomp):" /proc/1/status' 2>&1 | tr -s ' \t\n' ' ')
    log "    $c: $facts"
    if [[ "$facts" == *"uid=$uid "* && "$facts" == *"root=ro"* && "$facts" == *"tmp=rw"* \
          && "$facts" == *"CapEff: 0000000000000000"* && "$facts" == *"NoNewPrivs: 1"* && "$facts" == *"Seccomp: 2"* ]]; then
        pass "$c: uid $uid, read-only root, writable /tmp (emptyDir), no capabilities, no_new_privs, seccomp filter"
    else
        fail "$c security context not as declared: $facts"
    fi
}

check_through_balancer() {
    local deadline=$(( $(date +%s) + 60 )) out rc=0
    until via_lb health > /dev/null 2>&1; do
        (( $(date +%s) > deadline )) && { podman logs --tail 20 "$BALANCER" 2>&1 | sed 's/^/    /'; fail "no SERVING through the balancer (TLS) on 127.0.0.1:$LB_PORT"; return 1; }
        sleep 2
    done
    pass "balancer: TLS from the Secret on 127.0.0.1:$LB_PORT, health SERVING through it"
    out=$(unset TRADUCTOR_TOKEN; via_lb translate "Permission denied" 2>&1) || rc=$?
    if (( rc != 0 )) && [[ "$out" == *UNAUTHENTICATED* ]]; then
        pass "a Translate call without the token is refused: $(echo "$out" | tail -1)"
    else
        fail "a call without the token was not refused UNAUTHENTICATED (exit $rc): $out"
    fi
    if out=$(via_lb translate --token "$TOKEN" "Permission denied" 2>&1); then
        pass "with the Secret's token: 'Permission denied' -> '$out'"
    else
        fail "Translate with the token failed: $out"
    fi
}

# The repository of two models the init container wrote: ListModels through the balancer lists
# both, a call naming each is answered (the same text: one is a copy of the other) and counted
# under its own model label on the metrics port; an unknown model is NOT_FOUND.
model_calls() {  # MODEL: Translate* OK calls the translator counted under model=MODEL
    python3 -c '
import re, sys, urllib.request
text = urllib.request.urlopen(f"http://127.0.0.1:{sys.argv[2]}/metrics", timeout=5).read().decode()
rows = [(dict(re.findall(r"(\w+)=\"([^\"]*)\"", labels)), float(v))
        for labels, v in re.findall(r"^traductor_requests_total\{([^}]*)\} (\S+)", text, re.M)]
print(int(sum(v for labels, v in rows if labels.get("model") == sys.argv[1] and labels.get("code") == "OK"
              and labels.get("rpc", "").startswith("Translate"))))' "$1" "$METRICS_PORT" 2> /dev/null || echo 0
}
# tests/stack_models_check.py imports traductor: run it in the translator's image, not with the
# host's python3
models_check() {
    podman run --rm -i --entrypoint python3 "traductor:$(image_tag traductor)" - "$@" \
        < "$ROOT/tests/stack_models_check.py" 2>&1 | grep -v systemd
    return "${PIPESTATUS[0]}"
}
check_models() {
    local listed answer rc before after text="Open File" first=""
    listed=$(via_lb models --token "$TOKEN" --json 2>&1) || { fail "ListModels through the balancer: $listed"; return 1; }
    if models_check "$listed" "$SECOND_MODEL"; then
        pass "ListModels through the balancer: the packaged models (en-es the default) and $SECOND_MODEL, all serving (the init container's repository)"
    else
        fail "ListModels does not list the packaged models (en-es the default) and $SECOND_MODEL serving: $listed"
    fi
    for model in en-es "$SECOND_MODEL"; do
        before=$(model_calls "$model")
        if answer=$(via_lb translate --token "$TOKEN" --model "$model" "$text" 2>&1) && [[ -n "$answer" ]]; then
            after=$(model_calls "$model")
            if (( after > before )); then
                pass "translate --model $model through the balancer: '$text' -> '$answer' (model=\"$model\" OK calls: $before -> $after)"
            else
                fail "translate --model $model answered '$answer', but the metrics did not count it under model=\"$model\" ($before -> $after)"
            fi
            [[ -z "$first" ]] && first="$answer"
            [[ "$answer" == "$first" ]] || fail "the copy $SECOND_MODEL answered '$answer', en-es '$first'"
        else
            fail "translate --model $model through the balancer: $answer"
        fi
    done
    rc=0
    answer=$(via_lb translate --token "$TOKEN" --model no-such-model "$text" 2>&1) || rc=$?
    if (( rc != 0 )) && [[ "$answer" == *NOT_FOUND* ]]; then
        pass "an unknown model is refused: $(tail -1 <<< "$answer")"
    else
        fail "translate --model no-such-model: exit $rc, $answer"
    fi
}

# The LibreTranslate-compatible HTTP API (http-api ports): POST /translate with curl on the pod's
# port (plaintext, as the balancer reaches it) and through the balancer (HTTPS with the Secret's
# certificate); without the key it is refused 403, with it the answer equals the gRPC one.
http_translate() {  # URL [curl args...]: prints "<body> <status>"
    local url="$1"; shift
    curl -s --max-time 30 --cacert "$WORK/tls.crt" --resolve "localhost:$LB_HTTP_PORT:127.0.0.1" \
        -w ' %{http_code}' "$url/translate" -H 'Content-Type: application/json' "$@" 2>&1 || true
}
check_http_api() {
    local text="Save the file before closing." keyed bare direct lb refused grpc
    keyed=$(python3 -c 'import json, sys; print(json.dumps({"q": sys.argv[1], "source": "en", "target": "es", "api_key": sys.argv[2]}))' "$text" "$TOKEN")
    bare=$(python3 -c 'import json, sys; print(json.dumps({"q": sys.argv[1], "source": "en", "target": "es"}))' "$text")
    direct=$(http_translate "http://127.0.0.1:$HTTP_PORT" -d "$keyed")
    log "    POST /translate on the pod's http-api port (127.0.0.1:$HTTP_PORT, plaintext): $direct"
    refused=$(http_translate "https://localhost:$LB_HTTP_PORT" -d "$bare")
    lb=$(http_translate "https://localhost:$LB_HTTP_PORT" -d "$keyed")
    log "    POST /translate through the balancer (https://localhost:$LB_HTTP_PORT): without api_key: $refused; with it: $lb"
    grpc=$(via_lb translate --token "$TOKEN" "$text" 2>&1) || true
    if python3 - "$direct" "$lb" "$refused" "$grpc" <<'EOF'
import json, sys
def parse(answer):
    body, status = answer.rsplit(" ", 1)
    return json.loads(body), int(status)
try:
    (direct, s1), (lb, s2), (refused, s3) = (parse(a) for a in sys.argv[1:4])
except ValueError:
    sys.exit(1)
ok = s1 == s2 == 200 and s3 == 403 and "error" in refused
ok = ok and direct["translatedText"] == lb["translatedText"] == sys.argv[4] != ""
sys.exit(0 if ok else 1)
EOF
    then
        pass "HTTP API: POST /translate 200 on the pod and through the balancer (HTTPS), 403 without the key; '$text' -> '$grpc', as over gRPC"
    else
        fail "HTTP API: pod: $direct; balancer: $lb; without the key: $refused; gRPC: $grpc"
    fi
}

check_loadtest() {
    log "    loadtest through the balancer: concurrency $LOADTEST_CONCURRENCY, ${LOADTEST_DURATION}s each, half streaming"
    via_lb loadtest --token "$TOKEN" --concurrency "$LOADTEST_CONCURRENCY" --duration "$LOADTEST_DURATION" \
        --stream-fraction 0.5 --no-progress --json-out "$WORK/loadtest.json" > "$WORK/loadtest.log" 2>&1 \
        || fail "loadtest exited with an error"
    sed 's/^/    /' "$WORK/loadtest.log"
    if python3 - "$WORK/loadtest.json" <<'EOF'
import json, sys
report = json.load(open(sys.argv[1]))
bad = [lv for lv in report["levels"] if lv["requests"] == 0 or lv.get("errors") or lv["ok"] != lv["requests"]]
for lv in report["levels"]:
    print(f"    {report['level_name']} {lv['level']:g}: {lv['requests']} requests, {lv['ok']} ok, errors {lv.get('errors') or 0}")
sys.exit(1 if bad else 0)
EOF
    then pass "load test through balancer and translator: every call OK"; else fail "load test had errors"; fi
    # memory against the Deployment's 1 GiB limit (informational)
    podman stats --no-stream --format '    memory after the load test: {{.Name}} {{.MemUsage}}' "$TRANSLATOR" "$BALANCER" 2>&1 \
        | grep -v systemd || true
}

# The series the HPA's prometheus-adapter rules read, and the calls counted by status.
check_metrics() {
    if python3 - "$METRICS_PORT" <<'EOF'
import re, sys, urllib.request
text = urllib.request.urlopen(f"http://127.0.0.1:{sys.argv[1]}/metrics", timeout=5).read().decode()
samples = [(dict(re.findall(r'(\w+)="([^"]*)"', labels)), float(v))
           for labels, v in re.findall(r"^traductor_requests_total\{([^}]*)\} (\S+)", text, re.M)]
def total(rpc_pattern, code):
    return sum(v for labels, v in samples if re.fullmatch(rpc_pattern, labels.get("rpc", "")) and labels.get("code") == code)
gauges = {name: float(v) for name, v in re.findall(r"^(traductor_active_sequences|traductor_queue_depth)\{[^}]*\} (\S+)", text, re.M)}
ok, refused = total(r"Translate.*", "OK"), total(r"Translate.*", "UNAUTHENTICATED")
print(f"    /metrics: Translate* OK {ok:.0f}, UNAUTHENTICATED {refused:.0f}; gauges {gauges}")
if not ok:
    print("    " + "\n    ".join(line for line in text.splitlines() if line.startswith("traductor_requests")))
sys.exit(0 if ok > 0 and refused >= 1 and set(gauges) == {"traductor_active_sequences", "traductor_queue_depth"} else 1)
EOF
    then pass "metrics port: the calls counted by status, and both gauges the HPA scales on are served"
    else fail "metrics port: missing counts or gauges"; fi
}

# SIGTERM under gRPC and HTTP load with /metrics scraped, SIGTERMS times (10 by default), with the Deployment's
# terminationGracePeriodSeconds as the stop timeout: each stop must end in exit 0 within it (from
# the server's first line after the SIGTERM to the exit podman recorded, tests/stack_stop_time.py)
# without a stall report; the translator is started again and SERVING before the next, and left
# stopped after the last. (podman does not run preStop hooks: on a cluster the sleep comes first,
# see docs/kubernetes.md.)
SIGTERMS="${SIGTERMS:-10}"
stop_lines() {  # CONTAINER: what its last stop's "draining" and "stopped" lines said
    podman logs "$1" 2>&1 | sed -n 's/.* traductor\.server draining: closing the listener, \(.*\) in flight.*/\1 in flight/p; s/.* traductor\.server stopped: //p' \
        | tail -2 | paste -sd ';' | sed 's/;/; /'
}
poll_ok() {  # NAME N: until callcount.py's NAME.progress.json counts N OK calls (120 s)
    local deadline=$(( $(date +%s) + 120 ))
    until (( $(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["by_code"].get("OK", 0))' \
                "$WORK/$1.progress.json" 2> /dev/null || echo 0) >= $2 )); do
        (( $(date +%s) <= deadline )) || return 1
        sleep 0.5
    done
}
check_sigterm() {
    local grace i took code pid times=() bad=0 clients
    grace=$(python3 -c 'import sys, yaml; print([d for d in yaml.safe_load_all(open(sys.argv[1])) if d["kind"] == "Deployment"][0]["spec"]["template"]["spec"]["terminationGracePeriodSeconds"])' "$WORK/translator.yaml")
    for (( i = 1; i <= SIGTERMS; i++ )); do
        if (( i > 1 )); then
            podman start "$TRANSLATOR" > /dev/null 2>&1 || { fail "podman start $TRANSLATOR after stop $(( i - 1 ))"; return 1; }
            wait_serving "$TRANSLATOR" "$GRPC_PORT" || { fail "$TRANSLATOR never answered SERVING after stop $(( i - 1 ))"; return 1; }
        fi
        # gRPC (unary and streams) and HTTP /translate on the pod's ports, and /metrics scraped
        # every second on a kept-alive connection, as Prometheus does (tests/compose/callcount.py)
        rm -f "$WORK/drain.json" "$WORK/drain.progress.json" "$WORK/drain.stop"
        python3 "$ROOT/tests/compose/callcount.py" --target "127.0.0.1:$GRPC_PORT" --token "$TOKEN" \
            --concurrency 4 --http "http://127.0.0.1:$HTTP_PORT" --http-concurrency 2 \
            --scrape "http://127.0.0.1:$METRICS_PORT/metrics" --timeout 30 --name drain --dir "$WORK" \
            > "$WORK/drain.log" 2>&1 &
        pid=$!
        poll_ok drain 20 || log "    (stop $i: the load had not 20 OK calls within 120 s; stopping anyway)"
        podman stop -t "$grace" "$TRANSLATOR" > /dev/null 2>&1
        touch "$WORK/drain.stop"  # (a client of a stopped pod only counts refusals)
        code=$(podman inspect -f '{{.State.ExitCode}}' "$TRANSLATOR")
        took=$(podman logs "$TRANSLATOR" 2>&1 \
            | python3 "$ROOT/tests/stack_stop_time.py" "$(podman inspect -f '{{.State.FinishedAt}}' "$TRANSLATOR")" || true)
        wait "$pid" || true
        times+=("${took%% *}")
        clients=$([[ -f "$WORK/drain.json" ]] && python3 -c "
import json, sys; r = json.load(open(sys.argv[1]))
print(', '.join(f'{kind} {codes}' for kind, codes in sorted(r['by_kind'].items())))" "$WORK/drain.json")
        log "    stop $i/$SIGTERMS: exit $code ${took}s after the SIGTERM ($(stop_lines "$TRANSLATOR")); clients meanwhile: ${clients:-no report} (informational)"
        if [[ "$code" != 0 || "$took" == *stalled* ]] || ! awk -v t="${took%% *}" -v g="$grace" 'BEGIN { exit !(t + 0 < g + 0) }'; then
            fail "SIGTERM $i: exit code $code after ${took}s (grace period ${grace}s; podman logs $TRANSLATOR)"
            bad=1
        fi
    done
    podman logs "$TRANSLATOR" 2>&1 | grep -E "draining|grace period|stopped" | tail -3 | sed 's/^/    /'
    (( bad )) || pass "$SIGTERMS SIGTERMs under load: each drained and exited 0 within the grace period (${grace}s); $(python3 "$ROOT/tests/stack_stop_time.py" --percentiles "${times[@]}")"
}

# Glossaries on the claim traductor-glossaries (TRADUCTOR_GLOSSARY_DIR, a named volume under
# Podman) that every translator pod mounts: made through one pod, listed and applied by the
# other, and by both again after they were replaced or killed (tests/stack_glossary_check.py,
# DeepL's API v2 with the token as DeepL-Auth-Key).
GLOSSARY_ID=""
TRANSLATOR_B=""
glossary_check() { python3 "$ROOT/tests/stack_glossary_check.py" "$@" --key "$TOKEN" --cacert "$WORK/tls.crt"; }
wait_serving() {  # CONTAINER PORT: until grpc.health.v1 answers SERVING on 127.0.0.1:PORT (240 s)
    local deadline=$(( $(date +%s) + 240 ))
    until env -u TRADUCTOR_TOKEN traductor-client health --target "127.0.0.1:$2" --timeout 3 > /dev/null 2>&1; do
        if (( $(date +%s) > deadline )); then
            podman logs --tail 20 "$1" 2>&1 | sed 's/^/    /'
            return 1
        fi
        sleep 2
    done
}
glossary_on_both() {  # the glossary listed and applied by each pod, asked directly (its http-api port)
    local ok=0 out
    for target in "$TRANSLATOR http://127.0.0.1:$HTTP_PORT" "$TRANSLATOR_B http://127.0.0.1:$B_HTTP_PORT"; do
        read -r who url <<< "$target"
        log "    $who, asked directly ($url):"
        out=$(glossary_check "$url" check "$GLOSSARY_ID" --times 2 2>&1) || ok=1
        echo "$out"
    done
    return $ok
}
check_glossaries_shared() {
    local started out ok=1
    GLOSSARY_ID=$(glossary_check "https://localhost:$LB_HTTP_PORT" create 2>&1) || {
        fail "POST /v2/glossaries through the balancer: $GLOSSARY_ID"; GLOSSARY_ID=""; return 1; }
    log "    POST /v2/glossaries through the balancer (HTTPS, the token): created $GLOSSARY_ID; in $TRANSLATOR:"
    podman exec "$TRANSLATOR" sh -c 'echo "$TRADUCTOR_GLOSSARY_DIR"; ls -lna "$TRADUCTOR_GLOSSARY_DIR"' 2>&1 \
        | grep -v systemd | sed 's/^/      /'
    log "== play a second translator pod on the same glossary claim"
    PLAYED+=("$WORK/translator-b.yaml")
    started=$(date +%s)
    nice -n 19 podman kube play "$WORK/translator-b.yaml" > "$WORK/play-translator-b.log" 2>&1 || {
        cat "$WORK/play-translator-b.log"; fail "podman kube play translator-b.yaml"; return 1; }
    TRANSLATOR_B=$(podman ps --format '{{.Names}}' | grep -- '^traductor-b-.*-translator$' | head -1)
    wait_serving "$TRANSLATOR_B" "$B_GRPC_PORT" || { fail "$TRANSLATOR_B never answered SERVING"; return 1; }
    log "    $TRANSLATOR_B SERVING $(( $(date +%s) - started ))s after play; volumes of the two pods:"
    for c in "$TRANSLATOR" "$TRANSLATOR_B"; do
        log "      $c: $(podman inspect -f '{{range .Mounts}}{{if eq .Destination "/var/lib/traductor/glossaries"}}{{.Name}} -> {{.Destination}} rw={{.RW}}{{end}}{{end}}' "$c")"
    done
    log "    through the balancer (https://localhost:$LB_HTTP_PORT):"
    out=$(glossary_check "https://localhost:$LB_HTTP_PORT" check "$GLOSSARY_ID" --times 4 2>&1) || ok=0
    echo "$out"
    glossary_on_both || ok=0
    out=$(glossary_check "http://127.0.0.1:$HTTP_PORT" race --count 8 --also "http://127.0.0.1:$B_HTTP_PORT" 2>&1) || ok=0
    echo "$out"
    if (( ok )); then
        pass "glossary $GLOSSARY_ID, created through the balancer on the first pod, is listed and applied by both pods (one claim); 8 creates and deletes at once spread over both pods: none lost, none left"
    else
        fail "glossaries on the shared claim (lines above)"
    fi
}
check_glossaries_kept() {
    [[ -n "$GLOSSARY_ID" && -n "$TRANSLATOR_B" ]] || { fail "no glossary or no second pod to check after the restarts"; return 1; }
    local started pid how="its restart policy" t0
    t0=$(date +%s)
    started=$(podman inspect -f '{{.State.StartedAt}}' "$TRANSLATOR_B")
    pid=$(podman inspect -f '{{.State.Pid}}' "$TRANSLATOR_B")
    kill -9 "$pid"
    log "    SIGKILL to the server of $TRANSLATOR_B (host pid $pid)"
    podman kube down "$WORK/translator.yaml" > /dev/null 2>&1
    nice -n 19 podman kube play "$WORK/translator.yaml" > "$WORK/replay-translator.log" 2>&1 || {
        cat "$WORK/replay-translator.log"; fail "podman kube play translator.yaml (again)"; return 1; }
    TRANSLATOR=$(podman ps --format '{{.Names}}' | grep -- '^traductor-pod-.*-translator$' | head -1)
    log "    the first pod taken down (podman kube down) and played again: a new pod, $TRANSLATOR"
    local deadline=$(( $(date +%s) + 60 ))
    until [[ "$(podman inspect -f '{{.State.Running}}' "$TRANSLATOR_B")" == true \
             && "$(podman inspect -f '{{.State.StartedAt}}' "$TRANSLATOR_B")" != "$started" ]]; do
        if (( $(date +%s) > deadline )); then
            how="the script (podman start: the restart policy had not within 60 s)"
            podman start "$TRANSLATOR_B" > /dev/null 2>&1 || fail "podman start $TRANSLATOR_B"
            break
        fi
        sleep 1
    done
    log "    $TRANSLATOR_B restarted by $how (restart count $(podman inspect -f '{{.RestartCount}}' "$TRANSLATOR_B"))"
    wait_serving "$TRANSLATOR" "$GRPC_PORT" || { fail "the first pod, played again, never answered SERVING"; return 1; }
    wait_serving "$TRANSLATOR_B" "$B_GRPC_PORT" || { fail "$TRANSLATOR_B never answered SERVING after the kill"; return 1; }
    log "    both pods SERVING $(( $(date +%s) - t0 ))s after the kill and the take-down"
    if glossary_on_both; then
        pass "glossary $GLOSSARY_ID after the pods' restarts: listed and applied by the first pod played again (a new pod) and by the second after SIGKILL (restarted by $how)"
    else
        fail "glossary $GLOSSARY_ID lost or not applied after the restarts (lines above)"
    fi
}

# --- keys per caller: the key store pod and the two translator pods sharing it ----------------
# The Redis pod as played: PONG, its user and security context, its data on the claim.
check_key_store_pod() {
    local deadline=$(( $(date +%s) + 60 ))
    until [[ "$(podman exec "$REDIS" redis-cli ping 2> /dev/null)" == PONG ]]; do
        (( $(date +%s) < deadline )) || { podman logs --tail 20 "$REDIS" 2>&1 | sed 's/^/    /'; fail "$REDIS does not answer PONG"; return 1; }
        sleep 1
    done
    log "    $REDIS: $(podman exec "$REDIS" redis-server --version | cut -d' ' -f1-3); /data: $(podman exec "$REDIS" stat -c '%u:%g %a' /data); appendonly $(podman exec "$REDIS" redis-cli config get appendonly | tail -1); volumes: $(podman inspect -f '{{range .Mounts}}{{.Name}}->{{.Destination}} {{end}}' "$REDIS")"
    pass "key store pod $REDIS ($REDIS_IMAGE) answers PONG, append-only file on the claim traductor-redis"
    check_security "$REDIS" 999
}
metric_on() {  # PORT NAME: the value of an unlabelled metric on a pod's published metrics port
    curl -s --max-time 10 "http://127.0.0.1:$1/metrics" | awk -v n="$2" '$1 == n {print int($2)}'
}
KEY_C=""
check_keys_shared() {
    [[ -n "$TRANSLATOR_B" ]] || { fail "no second pod for the keys check"; return 1; }
    log "== keys per caller on the two pods sharing traductor-redis"
    local up_a up_b added key_a key_rate secret_of out ok=1
    up_a=$(metric_on "$METRICS_PORT" traductor_key_store_up) up_b=$(metric_on "$B_METRICS_PORT" traductor_key_store_up)
    log "    TRADUCTOR_KEYS_REDIS in both pods: $(podman exec "$TRANSLATOR" printenv TRADUCTOR_KEYS_REDIS), $(podman exec "$TRANSLATOR_B" printenv TRADUCTOR_KEYS_REDIS); traductor_key_store_up $up_a, $up_b"
    [[ "$up_a" == 1 && "$up_b" == 1 ]] || { fail "the key store is not up on both pods ($up_a, $up_b)"; ok=0; }
    secret_of() { python3 -c 'import json, sys; print(json.loads(sys.stdin.read().splitlines()[-1])["secret"])'; }
    added=$(podman exec "$TRANSLATOR" traductor keys add k8s-a --chars-per-month 1000000) || { fail "traductor keys add: $added"; return 1; }
    key_a=$(secret_of <<< "$added")
    log "    (in $TRANSLATOR) traductor keys add k8s-a: $(sed 's/"secret": "[^"]*"/"secret": "trk_…"/' <<< "$added")"
    added=$(podman exec "$TRANSLATOR" traductor keys add k8s-rate --requests-per-minute "$KEYS_RATE")
    key_rate=$(secret_of <<< "$added")
    log "    (in $TRANSLATOR) traductor keys add k8s-rate: $(sed 's/"secret": "[^"]*"/"secret": "trk_…"/' <<< "$added")"
    added=$(podman exec "$TRANSLATOR_B" traductor keys add k8s-c)
    KEY_C=$(secret_of <<< "$added")
    log "    (in $TRANSLATOR_B) traductor keys add k8s-c; traductor keys list there:"
    podman exec "$TRANSLATOR_B" traductor keys list | sed 's/^/      /'
    if python3 "$ROOT/tests/stack_keys_check.py" --key "$key_a" --rate-key "$key_rate" --rate "$KEYS_RATE" \
        --revoke "podman exec $TRANSLATOR_B traductor keys revoke k8s-a" \
        --monitor "podman exec $REDIS timeout 60 redis-cli monitor" \
        --other-key "$KEY_C" --admin "$TOKEN" \
        --balancer "https://localhost:$LB_HTTP_PORT" --cacert "$WORK/tls.crt" \
        "http://127.0.0.1:$HTTP_PORT" "http://127.0.0.1:$B_HTTP_PORT" 2>&1 | tee "$WORK/keys-check.log"; then :; else ok=0; fi
    # gRPC through the balancer (TLS) with the keys
    out=$(via_lb translate --token "$KEY_C" "Open the file" 2>&1) || { ok=0; log "    gRPC with k8s-c: $out"; }
    log "    gRPC through the balancer with k8s-c (made in $TRANSLATOR_B): '$out'"
    out=$(via_lb translate --token "$key_a" "Open the file" 2>&1) && { ok=0; log "    the revoked key was accepted over gRPC: $out"; }
    log "    gRPC with the revoked k8s-a: $(tail -1 <<< "$out")"
    [[ "$out" == *UNAUTHENTICATED* ]] || ok=0
    for s in "$key_a" "$key_rate" "$KEY_C"; do
        for c in "$TRANSLATOR" "$TRANSLATOR_B" "$BALANCER" "$REDIS"; do
            podman logs "$c" 2>&1 | grep -qF "$s" && { fail "a secret in $c's log"; ok=0; }
        done
    done
    if (( ok )); then
        pass "keys per caller on two pods sharing traductor-redis: made with traductor keys add in either pod, accepted by both and through the balancer (HTTPS, gRPC); $KEYS_RATE a minute held across them; /v2/usage = characters sent; revoked in one pod, refused by both within a second; no secret in the logs"
    else
        fail "keys per caller on the two pods (lines above)"
    fi
}
check_keys_kept() {  # after check_glossaries_kept: a new first pod, the second one killed and restarted
    [[ -n "$KEY_C" ]] || { fail "no key made before the restarts"; return 1; }
    local a b body='{"q": "Open the file", "source": "en", "target": "es"}'
    a=$(http_translate "http://127.0.0.1:$HTTP_PORT" -H "Authorization: Bearer $KEY_C" -d "$body")
    b=$(http_translate "http://127.0.0.1:$B_HTTP_PORT" -H "Authorization: Bearer $KEY_C" -d "$body")
    log "    k8s-c on the first pod (played again): ${a:0:60}... ${a: -3}; on the second: ${b:0:60}... ${b: -3}"
    if [[ "$a" == *" 200" && "$b" == *" 200" ]]; then
        pass "after the pods' restarts (a new first pod, the second killed): k8s-c, made before, still accepted by both (200, 200)"
    else
        fail "after the pods' restarts, k8s-c: $a (first pod), $b (second)"
    fi
    # the key store's container stopped (as while its pod restarts): fail closed; started again
    # on its claim: the keys are still there (the append-only file)
    podman stop -t 10 "$REDIS" > /dev/null 2>&1
    sleep 2   # a pod keeps a key it read for 0.5 s; its store watch pings every second
    local down=() up=() port keyed admin
    for port in "$HTTP_PORT:$METRICS_PORT" "$B_HTTP_PORT:$B_METRICS_PORT"; do
        keyed=$(http_translate "http://127.0.0.1:${port%%:*}" -H "Authorization: Bearer $KEY_C" -d "$body")
        admin=$(http_translate "http://127.0.0.1:${port%%:*}" -H "Authorization: Bearer $TOKEN" -d "$body")
        down+=("${keyed: -3}/${admin: -3}/$(metric_on "${port##*:}" traductor_key_store_up)")
    done
    log "    $REDIS stopped: k8s-c / the token / traductor_key_store_up on each pod: ${down[*]}; ${keyed:0:140}"
    podman start "$REDIS" > /dev/null 2>&1
    local deadline=$(( $(date +%s) + 60 )) answered
    until [[ "$(podman exec "$REDIS" redis-cli ping 2> /dev/null)" == PONG ]] || (( $(date +%s) > deadline )); do sleep 1; done
    answered=$(date +%s.%N)
    # each pod reconnects by itself; how long it takes is measured (up to 60 s)
    for port in "$HTTP_PORT:$METRICS_PORT" "$B_HTTP_PORT:$B_METRICS_PORT"; do
        until keyed=$(http_translate "http://127.0.0.1:${port%%:*}" -H "Authorization: Bearer $KEY_C" -d "$body")
              [[ "$keyed" == *" 200" ]] || (( $(date +%s) > deadline )); do sleep 0.5; done
        up+=("${keyed: -3}/$(metric_on "${port##*:}" traductor_key_store_up)")
        log "    127.0.0.1:${port%%:*}: k8s-c answered ${keyed: -3} $(python3 -c "import time; print(f'{time.time() - $answered:.1f}')") s after Redis answered PONG again"
    done
    log "    $REDIS started again: k8s-c / traductor_key_store_up on each pod: ${up[*]}"
    if [[ "${down[*]}" == "503/200/0 503/200/0" && "${up[*]}" == "200/1 200/1" ]]; then
        pass "key store stopped: both pods refuse a stored key with 503, the token gets 200, traductor_key_store_up 0; started again on its claim: the key accepted again by both"
    else
        fail "key store stopped and started: ${down[*]} then ${up[*]} (expected 503/200/0 twice, then 200/1 twice)"
    fi
}
