#!/bin/sh
# Starts a Redis Sentinel of docker-compose.yml's `ha` profile from a writable copy of sentinel.conf
# (beside this script) in its data directory: a sentinel rewrites its configuration file, so the
# copy is written once, on the sentinel's first start, and kept afterwards. Extra arguments go to
# the sentinel.
#   SENTINEL_MASTER_NAME    the master's name, as chaintap's REDIS_SENTINEL_NAME gives it (required)
#   SENTINEL_MASTER_HOST    the first master's name or address (required)
#   SENTINEL_MASTER_PORT    its port, default 6379
#   SENTINEL_ANNOUNCE_HOST  the name the other sentinels and the clients reach this sentinel by (required)
#   SENTINEL_DIR, SENTINEL_PORT  default /data and 26379 (the tests change them)
set -eu

: "${SENTINEL_MASTER_NAME:?the master name is required}"
: "${SENTINEL_MASTER_HOST:?the master's host is required}"
: "${SENTINEL_ANNOUNCE_HOST:?the name this sentinel is reached by is required}"
dir="${SENTINEL_DIR:-/data}"
conf="$dir/sentinel.conf"

if [ ! -f "$conf" ]; then
  {
    sed -e "s/@MASTER_NAME@/$SENTINEL_MASTER_NAME/g" \
      -e "s/@MASTER_HOST@/$SENTINEL_MASTER_HOST/g" \
      -e "s/@MASTER_PORT@/${SENTINEL_MASTER_PORT:-6379}/g" \
      "$(dirname "$0")/sentinel.conf"
    echo
    echo "# Written by start-sentinel.sh on the first start."
    echo "port ${SENTINEL_PORT:-26379}"
    echo "dir $dir"
    echo "sentinel announce-ip $SENTINEL_ANNOUNCE_HOST"
  } >"$conf.new"
  mv "$conf.new" "$conf"
fi

# redis-server in sentinel mode is redis-sentinel (which Debian packages apart from redis-server).
exec redis-server "$conf" --sentinel "$@"
