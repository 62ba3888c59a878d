# shellcheck shell=bash
# Sourced by tests/compose/run.sh: replicas restarted and killed under load (issue 15).
#
# A client load (callcount.py, in the client image, through the balancer's published ports, no
# retries: CHURN_CONCURRENCY gRPC threads, and CHURN_HTTP_CONCURRENCY threads on the HTTP API
# during the restarts) runs while
#   check_rolling_restarts  stops replicas one after the other with SIGTERM (RESTARTS times, 10 by
#                           default): each must exit 0 by itself within the grace period
#                           (STOP_GRACE; its own log and podman's exit time say how long it took,
#                           tests/stack_stop_time.py) without a stall report, start again, answer
#                           SERVING and be sent calls again before the next one; no call may fail
#                           at the client; the stop times' percentiles are printed;
#   check_kill              sends SIGKILL to one replica's server process: only calls in flight on
#                           it may fail (UNAVAILABLE), calls keep succeeding on the others, and the
#                           replica is restarted (restart policy; by the script if the policy has
#                           not done it within KILL_RESTART_WAIT seconds, which is reported) and
#                           serves calls again.
# Every wait ends on a condition (exit, health, a replica's own /metrics, the load's progress
# file), with a deadline of CHURN_WAIT seconds; nothing relies on a sleep being long enough.
#
# Uses from run.sh: PROJECT, ROOT, WORK, REPORTS, LB_PORT, TRANSLATORS, log, pass, fail.

RESTARTS="${RESTARTS:-10}"
CHURN_CONCURRENCY="${CHURN_CONCURRENCY:-4}"
CHURN_HTTP_CONCURRENCY="${CHURN_HTTP_CONCURRENCY:-2}"
CHURN_WAIT="${CHURN_WAIT:-300}"
KILL_RESTART_WAIT="${KILL_RESTART_WAIT:-60}"
# docker-compose.yml's stop_grace_period: podman-compose applies it to its own `stop`/`down`
# only, so a plain `podman stop` is given it here
STOP_GRACE="${STOP_GRACE:-9}"

now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

# Translate* calls a replica has answered since it started (its own /metrics, read inside it).
replica_calls() {
    podman exec "$1" python3 -c '
import re, urllib.request
text = urllib.request.urlopen("http://127.0.0.1:9090/metrics", timeout=5).read().decode()
print(int(sum(float(v) for rpc, v in re.findall(
    r"^traductor_requests_total\{[^}]*rpc=\"([^\"]+)\"[^}]*\} (\S+)", text, re.M) if rpc.startswith("Translate"))))' \
        2> /dev/null
}

# poll_until SECONDS COMMAND...: run COMMAND every second until it succeeds; 1 after SECONDS.
poll_until() {
    local deadline=$(( $(date +%s) + $1 ))
    shift
    until "$@"; do
        (( $(date +%s) <= deadline )) || return 1
        sleep 1
    done
}
# wait_for DESCRIPTION COMMAND...: the same within CHURN_WAIT seconds, a failure after it.
wait_for() {
    local what="$1"
    shift
    poll_until "$CHURN_WAIT" "$@" || { fail "$what: not within ${CHURN_WAIT}s"; return 1; }
}
# SERVING from the replica's gRPC health service, asked inside it. Not `podman healthcheck run`:
# its 3 s timeout includes the client's Python start-up, which a busy machine can exceed.
is_serving() { podman exec "$1" traductor-client health --target 127.0.0.1:50051 > /dev/null 2>&1; }
has_served() { local n; n=$(replica_calls "$1") && (( n > 0 )); }
is_running() { [[ $(podman inspect -f '{{.State.Running}}' "$1" 2> /dev/null) == true ]]; }
restarted_since() {  # container, StartedAt before: running again with a later start
    is_running "$1" && [[ $(podman inspect -f '{{.State.StartedAt}}' "$1") != "$2" ]]
}

# The load: callcount.py NAME in the client image, on the host network, through the balancer.
start_load() {  # NAME [callcount.py options...]
    local name="$1"
    shift
    rm -f "$REPORTS/$name.json" "$REPORTS/$name.progress.json" "$REPORTS/$name.stop"
    podman run -d --rm --name "$PROJECT-load-$name" --network=host \
        --label "com.docker.compose.project=$PROJECT" \
        -v "$REPORTS:/reports" -v "$ROOT/tests/compose:/probe:ro" --entrypoint python3 \
        traductor-loadtest:latest /probe/callcount.py --target "127.0.0.1:$LB_PORT" \
        --concurrency "$CHURN_CONCURRENCY" --name "$name" --dir /reports "$@" > /dev/null || {
        fail "could not start the load $name"; return 1; }
    wait_for "load $name: first OK calls" load_ok_at_least "$name" 20
}
load_ok() { python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["by_code"].get("OK", 0))' \
    "$REPORTS/$1.progress.json" 2> /dev/null || echo 0; }
load_ok_at_least() { (( $(load_ok "$1") >= $2 )); }
stop_load() {
    local name="$1"
    touch "$REPORTS/$name.stop"
    podman wait "$PROJECT-load-$name" > /dev/null 2>&1 || true
    [[ -f "$REPORTS/$name.json" ]] || { fail "the load $name wrote no report"; return 1; }
}

# SIGTERM (podman stop: the container's stop signal, SIGKILL after STOP_GRACE), exit 0 within
# the grace period and no stall report, start, SERVING, served calls again; one line with the times.
STOP_TIMES=()
restart_replica() {
    local c="$1" n="$2" t0 stopped code took
    t0=$(now)
    podman stop -t "$STOP_GRACE" "$c" > /dev/null 2>> "$WORK/churn.log"  # (podman's complaints about systemd timers)
    stopped=$(since "$t0")
    code=$(podman inspect -f '{{.State.ExitCode}}' "$c")
    took=$(stop_time "$c")
    STOP_TIMES+=("${took%% *}")
    if [[ "$code" != 0 ]]; then
        fail "restart $n: $c exited with $code after SIGTERM (${stopped}s; 137: killed at the end of the grace period)"
    elif [[ "$took" == *stalled* ]] || ! awk -v t="${took%% *}" -v g="$STOP_GRACE" 'BEGIN { exit !(t + 0 < g + 0) }'; then
        fail "restart $n: $c took ${took}s from SIGTERM to its exit (grace period ${STOP_GRACE}s; its log: podman logs $c)"
    fi
    podman start "$c" > /dev/null 2>> "$WORK/churn.log" || { fail "restart $n: podman start $c failed"; return 1; }
    wait_for "restart $n: $c SERVING" is_serving "$c" || return 1
    wait_for "restart $n: $c served calls" has_served "$c" || return 1
    log "    restart $n: $c exited $code ${took}s after the SIGTERM (podman stop ${stopped}s; $(stop_lines "$c")), SERVING and served calls $(since "$t0")s after it (load: $(load_ok restarts) OK calls so far)"
}

# Seconds from the SIGTERM (the server's first line after it) to the exit podman recorded, from
# the container's log; "stalled" after them when the server wrote a stall report.
stop_time() {
    podman logs "$1" 2>&1 | python3 "$ROOT/tests/stack_stop_time.py" "$(podman inspect -f '{{.State.FinishedAt}}' "$1")" || true
}

stop_lines() {  # CONTAINER: what its last stop's "draining" and "stopped" lines said
    podman logs "$1" 2>&1 | sed -n 's/.* traductor\.server draining: closing the listener, \(.*\) in flight.*/\1 in flight/p; s/.* traductor\.server stopped: //p' \
        | tail -2 | paste -sd ';' | sed 's/;/; /'
}

percentiles() { python3 "$ROOT/tests/stack_stop_time.py" --percentiles "$@"; }

check_rolling_restarts() {
    local i ok=1
    # gRPC (unary and streams) and the HTTP API through the balancer, Prometheus scraping the
    # replicas meanwhile (its keep-alive connections to their metrics ports)
    start_load restarts --http "http://127.0.0.1:$LB_HTTP_PORT" --http-concurrency "$CHURN_HTTP_CONCURRENCY" || return
    for (( i = 0; i < RESTARTS; i++ )); do
        restart_replica "${TRANSLATORS[i % ${#TRANSLATORS[@]}]}" "$(( i + 1 ))/$RESTARTS" || { ok=0; break; }
    done
    stop_load restarts || return
    log "    SIGTERM to exit: $(percentiles "${STOP_TIMES[@]}") (grace period ${STOP_GRACE}s)"
    if python3 "$ROOT/tests/compose/callcount_check.py" restarts "$REPORTS/restarts.json" && (( ok )); then
        pass "$RESTARTS rolling restarts (SIGTERM, exit 0 within ${STOP_GRACE}s, start, SERVING) under load: no failed call; $(percentiles "${STOP_TIMES[@]}")"
    else
        fail "rolling restarts under load: failed calls or a replica that did not come back"
    fi
}

# SIGKILL to PID; prints the time it was sent and the time every thread of it had exited (its
# sockets closed: the replica is gone for the balancer), as "KILLED GONE".
kill_and_time() {
    python3 - "$1" <<'EOF'
import glob, os, sys, time
pid = int(sys.argv[1])
killed = time.time()
os.kill(pid, 9)
def alive():
    for stat in glob.glob(f"/proc/{pid}/task/*/stat"):
        try:
            if open(stat).read().rsplit(") ", 1)[1][0] not in "ZX":
                return True
        except (OSError, IndexError):
            pass
    return False
while alive():
    time.sleep(0.005)
print(f"{killed:.3f} {time.time():.3f}")
EOF
}

check_kill() {
    local c="${TRANSLATORS[1]}" started pid times killed gone rejoined how="its restart policy"
    start_load kill || return
    started=$(podman inspect -f '{{.State.StartedAt}}' "$c")
    pid=$(podman inspect -f '{{.State.Pid}}' "$c")
    times=$(kill_and_time "$pid") || { fail "could not kill $c (pid $pid)"; stop_load kill; return; }
    read -r killed gone <<< "$times"
    log "    SIGKILL to $c (host pid $pid): gone after $(awk -v a="$killed" -v b="$gone" 'BEGIN { printf "%.3f", b - a }')s"
    if ! poll_until "$KILL_RESTART_WAIT" restarted_since "$c" "$started"; then
        how="the script (podman start; the restart policy had not within ${KILL_RESTART_WAIT}s)"
        podman start "$c" > /dev/null 2>> "$WORK/churn.log" || fail "podman start $c failed"
    fi
    log "    $c restarted by $how, $(since "$killed")s after the kill (restart count $(podman inspect -f '{{.RestartCount}}' "$c"))"
    wait_for "$c SERVING after the kill" is_serving "$c" && wait_for "$c served calls after the kill" has_served "$c"
    rejoined=$(now)
    stop_load kill || return
    if python3 "$ROOT/tests/compose/callcount_check.py" kill "$REPORTS/kill.json" --killed "$killed" \
        --gone "$gone" --rejoined "$rejoined" --max-failed "$CHURN_CONCURRENCY"; then
        pass "kill -9 of $c under load: only calls in flight on it failed, the others went on; restarted by $how, serving again $(awk -v a="$killed" -v b="$rejoined" 'BEGIN { printf "%.1f", b - a }')s after the kill"
    else
        fail "kill -9 of $c under load (see the lines above)"
    fi
}
