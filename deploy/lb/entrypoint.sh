#!/bin/sh
# Start nginx as the gRPC balancer, and keep its list of translator replicas current.
#
#   UPSTREAM_HOST     DNS name of the translator replicas (default: translator, the compose
#                     service; the container runtime's DNS answers it with one address per replica)
#   UPSTREAM_PORT     their gRPC port (default 50051)
#   UPSTREAM_HTTP_PORT their HTTP API port (default 5000; port 5000 of the balancer proxies it)
#   REFRESH_SECONDS   how often the name is resolved again (default 2)
#   HEALTH_CHECK      1 (default): of the resolved replicas, list only those whose gRPC health
#                     check answers SERVING (lb-grpc-health); 0: every resolved replica
#   TLS_CERT, TLS_KEY PEM certificate chain and key: when both files exist, clients must speak
#                     TLS to ports 50051 and 5000 (the balancer terminates it; replicas stay plaintext)
#
# The replica addresses are written into an nginx `upstream` block (upstreams.conf). A watcher
# resolves the name every REFRESH_SECONDS and asks each replica's gRPC health service (an active
# health check, which nginx itself lacks); when the set of SERVING addresses changes (scale
# up/down, a replica stopping: it answers NOT_SERVING during its pre-stop window, or restarted)
# it rewrites the block and reloads nginx, which lets calls in flight finish. So a stopping
# replica gets no new calls before it closes its listener: a call that reached it just before
# could otherwise still be waiting, unread, in its gRPC queue when it stops, and be cancelled.
# When no replica answers SERVING (all starting, or the probe failed), every resolved one is
# listed: refused connections are retried on another replica, an empty list would fail calls.
# When DNS does not answer (a hiccup of the runtime's resolver), the last known list is kept:
# a missed lookup never turns into failed calls.
set -eu

UPSTREAM_HOST="${UPSTREAM_HOST:-translator}"
UPSTREAM_PORT="${UPSTREAM_PORT:-50051}"
UPSTREAM_HTTP_PORT="${UPSTREAM_HTTP_PORT:-5000}"
REFRESH_SECONDS="${REFRESH_SECONDS:-2}"
CONF_DIR=/tmp/nginx
UPSTREAMS="$CONF_DIR/upstreams.conf"

HEALTH_CHECK="${HEALTH_CHECK:-1}"

log() { echo "lb-entrypoint: $*" >&2; }

# The IPv4 addresses of the replicas, one a line, sorted; fails when the name does not resolve.
resolve() {
    getent ahostsv4 "$UPSTREAM_HOST" | awk '{ print $1 }' | sort -u
}

# Write the upstream blocks (gRPC, HTTP) for the addresses on stdin (none: a placeholder that is down, so
# calls fail fast with UNAVAILABLE until a replica appears).
render() {
    addresses="$(cat)"
    {
        echo "# written by lb-entrypoint from the DNS answer for $UPSTREAM_HOST"
        upstream translator_replicas "$UPSTREAM_PORT"
        upstream translator_http "$UPSTREAM_HTTP_PORT"
        sticky_upstream translator_http_files "$UPSTREAM_HTTP_PORT"
    } > "$UPSTREAMS.new"
    mv "$UPSTREAMS.new" "$UPSTREAMS"
}

# One upstream block: name, port; the addresses come from $addresses.
upstream() {
    echo "upstream $1 {"
    found=0
    for address in $addresses; do
        # Passive health checks: a replica that refused a connection or broke a call is skipped
        # for fail_timeout (it is starting, draining or gone); round-robin over the others.
        echo "    server $address:$2 max_fails=1 fail_timeout=5s;"
        found=1
    done
    # When every replica is marked failed at once (one was killed while another was still in
    # its fail_timeout after a restart), nginx would answer "no live upstreams" (502) without
    # trying any. The same addresses as backups, never marked failed, are tried then instead.
    for address in $addresses; do
        echo "    server $address:$2 backup max_fails=0;"
    done
    [ "$found" = 1 ] || echo "    server 127.0.0.1:9 down;  # no replica resolved yet"
    echo "}"
}

# The upstream of /translate_file and /download_file: a translated file waits in the memory of the
# replica that made it, so a client's upload and download must reach the same replica. The
# client's address picks it (consistent hashing: a replica joining or leaving moves few clients).
# nginx allows no backup servers with hash balancing.
sticky_upstream() {
    echo "upstream $1 {"
    echo "    hash \$remote_addr consistent;"
    found=0
    for address in $addresses; do
        echo "    server $address:$2 max_fails=1 fail_timeout=5s;"
        found=1
    done
    [ "$found" = 1 ] || echo "    server 127.0.0.1:9 down;  # no replica resolved yet"
    echo "}"
}

# Of the addresses in $1, those that answer SERVING; all of them when none does.
serving() {
    if [ "$HEALTH_CHECK" != 1 ]; then
        echo "$1"
        return
    fi
    # shellcheck disable=SC2086  # one argument per address
    healthy="$(lb-grpc-health "$UPSTREAM_PORT" $1 2> /dev/null | sort -u)"
    echo "${healthy:-$1}"
}

watch_replicas() {
    current="$1"
    while sleep "$REFRESH_SECONDS"; do
        if ! latest="$(resolve)" || [ -z "$latest" ]; then
            continue  # no answer: keep what nginx has
        fi
        latest="$(serving "$latest")"
        if [ "$latest" != "$current" ]; then
            log "replicas now: $(echo $latest)"
            echo "$latest" | render
            if nginx -e stderr -c "$CONF_DIR/nginx.conf" -t -q; then
                nginx -e stderr -c "$CONF_DIR/nginx.conf" -s reload
                current="$latest"
            else
                log "new configuration rejected; keeping the old one"
            fi
        fi
    done
}

mkdir -p "$CONF_DIR"
LISTEN="listen 50051 http2;"
LISTEN_HTTP="listen 5000;"
if [ -f "${TLS_CERT:-}" ] && [ -f "${TLS_KEY:-}" ]; then
    LISTEN="listen 50051 ssl http2; ssl_certificate $TLS_CERT; ssl_certificate_key $TLS_KEY;"
    LISTEN_HTTP="listen 5000 ssl; ssl_certificate $TLS_CERT; ssl_certificate_key $TLS_KEY;"
    log "TLS on ports 50051 and 5000 with $TLS_CERT"
fi
sed -e "s|@UPSTREAMS@|$UPSTREAMS|g" -e "s|^\( *\)listen 50051 http2;|\1$LISTEN|" \
    -e "s|^\( *\)listen 5000;|\1$LISTEN_HTTP|" \
    /etc/nginx/traductor.conf.template > "$CONF_DIR/nginx.conf"

initial="$(resolve || true)"
echo "$initial" | render
log "grpc_pass to $UPSTREAM_HOST:$UPSTREAM_PORT, replicas: $(echo ${initial:-none yet}) (re-resolved every ${REFRESH_SECONDS}s)"

# The watcher runs beside nginx; nginx stays PID 1 so that stop signals reach it directly.
watch_replicas "$initial" &
# -e: log to stderr from the start (before the configuration is read)
exec nginx -e stderr -c "$CONF_DIR/nginx.conf" -g 'daemon off;'
