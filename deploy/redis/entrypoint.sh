#!/bin/sh
# redis-server ARGS -> redis-server --protected-mode no ARGS (ARGS may turn it on again);
# anything else (redis-cli, sh) runs as given.
set -e
if [ "$1" = "redis-server" ]; then
    shift
    exec redis-server --protected-mode no "$@"
fi
exec "$@"
