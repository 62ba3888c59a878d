#!/bin/sh
# Fill in the nginx configuration template, then run nginx in the foreground.
#
#   UPSTREAM_HOST  DNS name of the translator replicas (default: translator, the compose service);
#                  the container runtime's DNS answers it with one address per replica
#   UPSTREAM_PORT  their gRPC port (default 50051)
#   DNS_RESOLVER   the DNS server nginx asks at request time (default: the first nameserver of
#                  /etc/resolv.conf: 127.0.0.11 under Docker, the network gateway under Podman)
set -eu

UPSTREAM_HOST="${UPSTREAM_HOST:-translator}"
UPSTREAM_PORT="${UPSTREAM_PORT:-50051}"
if [ -z "${DNS_RESOLVER:-}" ]; then
    DNS_RESOLVER="$(awk '$1 == "nameserver" { print $2; exit }' /etc/resolv.conf)"
fi
case "$DNS_RESOLVER" in
    *:*) DNS_RESOLVER="[$DNS_RESOLVER]" ;;  # an IPv6 address needs brackets in nginx
esac
if [ -z "$DNS_RESOLVER" ]; then
    echo "lb-entrypoint: no DNS resolver (set DNS_RESOLVER)" >&2
    exit 1
fi

sed -e "s|@UPSTREAM_HOST@|$UPSTREAM_HOST|g" \
    -e "s|@UPSTREAM_PORT@|$UPSTREAM_PORT|g" \
    -e "s|@DNS_RESOLVER@|$DNS_RESOLVER|g" \
    /etc/nginx/traductor.conf.template > /tmp/nginx/nginx.conf

echo "lb-entrypoint: grpc_pass to $UPSTREAM_HOST:$UPSTREAM_PORT, resolved per request via $DNS_RESOLVER" >&2
# -e: log to stderr from the start (before the configuration is read)
exec nginx -e stderr -c /tmp/nginx/nginx.conf -g 'daemon off;'
