# Sourced by the stack scripts (tests/compose/run.sh, tests/compose/keys.sh): the log lines, free
# ports, and Podman set up as /work/shared/notes/containers.md says (runc, cgroupfs, no default
# ulimits; podman-compose from PyPI; a Debian bookworm base image made with debootstrap, since no
# registry is reachable). Also sourced by tests/kubernetes/run.sh, which needs no podman-compose.
# Reads PODMAN_WORK (default WORK: containers.conf, the venv, the rootfs), BASE_IMAGE and
# PODMAN_COMPOSE_VERSION (empty: no podman-compose); sets PC and CONTAINERS_CONF. T0, FAILURES and
# SUMMARY are set here for log/fail/pass.

T0=$(date +%s)
FAILURES=()
SUMMARY=()
log() { printf '[%4ss] %s\n' "$(( $(date +%s) - T0 ))" "$*"; }
fail() { log "FAIL: $*"; FAILURES+=("$*"); }
pass() { log "ok: $*"; SUMMARY+=("ok    $*"); }
free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

setup_podman() {
    local missing=()
    for tool in podman runc debootstrap; do
        command -v "$tool" > /dev/null || missing+=("$tool")
    done
    if (( ${#missing[@]} )); then
        log "installing podman runc debootstrap (missing: ${missing[*]})"
        apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq podman runc debootstrap > /dev/null
    fi
    local dir="${PODMAN_WORK:-$WORK}"
    mkdir -p "$dir"
    # runc instead of crun (cgroups v1 in hybrid mode), cgroupfs, no default ulimits.
    cat > "$dir/containers.conf" <<'CONF'
[containers]
default_ulimits = []
[engine]
cgroup_manager = "cgroupfs"
runtime = "runc"
CONF
    export CONTAINERS_CONF="$dir/containers.conf"
    if [[ -z "${PODMAN_COMPOSE_VERSION:-}" ]]; then
        log "$(podman --version)"
        return
    fi
    # podman-compose with profiles and --scale: from PyPI into a private venv.
    PC="$dir/venv/bin/podman-compose"
    if ! "$PC" --version 2> /dev/null | grep -q "version $PODMAN_COMPOSE_VERSION"; then
        log "installing podman-compose $PODMAN_COMPOSE_VERSION into $dir/venv"
        python3 -m venv "$dir/venv"
        "$dir/venv/bin/pip" install -q "podman-compose==$PODMAN_COMPOSE_VERSION" 2>&1 | grep -v '^WARNING: Location' || true
    fi
    log "$("$PC" --version | head -1); $(podman --version)"
}

# The Debian mirror the host uses (deb822 .sources or one-line .list).
debian_mirror() {
    local uri
    uri=$(grep -hs '^URIs:' /etc/apt/sources.list.d/*.sources | awk '$2 !~ /security/ {print $2; exit}')
    [[ -n "$uri" ]] || uri=$(grep -hs '^deb ' /etc/apt/sources.list /etc/apt/sources.list.d/*.list | awk '$2 !~ /security/ {print $2; exit}')
    echo "${uri:-http://deb.debian.org/debian}"
}

# The base image: Debian bookworm (python3 3.11) with the host's CA bundle (the proxy's CA).
setup_base_image() {
    if podman image exists "$BASE_IMAGE"; then
        log "base image $BASE_IMAGE present"
        return
    fi
    local rootfs="${PODMAN_WORK:-$WORK}/rootfs" mirror
    mirror=$(debian_mirror)
    log "debootstrap bookworm from $mirror for $BASE_IMAGE"
    rm -rf "$rootfs"
    nice -n 19 debootstrap --variant=minbase --include=python3,python3-venv,python3-pip bookworm "$rootfs" "$mirror" \
        > "${PODMAN_WORK:-$WORK}/debootstrap.log"
    cp /etc/ssl/certs/ca-certificates.crt "$rootfs/etc/ssl/certs/ca-certificates.crt"
    printf '[global]\ncert = /etc/ssl/certs/ca-certificates.crt\n' > "$rootfs/etc/pip.conf"
    tar -C "$rootfs" -c . | podman import - "$BASE_IMAGE" > /dev/null
    rm -rf "$rootfs"
}
