#!/bin/sh
# Starts a Redis data node of docker-compose.yml's `ha` profile from a writable copy of redis.conf
# (beside this script) in its data directory. The sentinels rewrite the copy on a failover, so it is
# written once, on the node's first start, and kept afterwards. Extra arguments go to redis-server.
#   REDIS_ANNOUNCE_HOST  the name the other node and the sentinels reach this node by (required)
#   REDIS_REPLICA_OF     "host port" of the master to replicate on the first start; unset: a master
#   REDIS_DIR, REDIS_PORT  default /data and 6379 (the tests change them)
set -eu

: "${REDIS_ANNOUNCE_HOST:?the name this node is reached by is required}"
dir="${REDIS_DIR:-/data}"
conf="$dir/redis.conf"

if [ ! -f "$conf" ]; then
  {
    cat "$(dirname "$0")/redis.conf"
    echo
    echo "# Written by start-redis.sh on the first start."
    echo "port ${REDIS_PORT:-6379}"
    echo "dir $dir"
    # A replica is known to its master, and so to the sentinels and through them to the clients, by
    # the address it announces: its name, since a container's address changes when it is recreated.
    echo "replica-announce-ip $REDIS_ANNOUNCE_HOST"
    if [ -n "${REDIS_REPLICA_OF:-}" ]; then echo "replicaof $REDIS_REPLICA_OF"; fi
  } >"$conf.new"
  mv "$conf.new" "$conf"
fi

exec redis-server "$conf" "$@"
