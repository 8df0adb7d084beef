#!/usr/bin/env bash
# Starts the local PostgreSQL and Redis the adapter tests need, when they are stopped.
set -euo pipefail

wait_for() { # name, command
  for _ in $(seq 1 30); do
    if eval "$2" >/dev/null 2>&1; then echo "$1 is up"; return 0; fi
    sleep 1
  done
  echo "$1 did not come up" >&2
  return 1
}

if ! pg_isready -h 127.0.0.1 -p 5432 >/dev/null 2>&1; then
  echo "starting PostgreSQL"
  if command -v pg_ctlcluster >/dev/null 2>&1 && [ -d /etc/postgresql ]; then
    pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -1)" main start || true
  fi
fi
wait_for PostgreSQL "pg_isready -h 127.0.0.1 -p 5432"

if ! redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1; then
  echo "starting Redis"
  mkdir -p /var/lib/redis /var/log/redis
  redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no \
    --dir /var/lib/redis --logfile /var/log/redis/ci.log
fi
wait_for Redis "redis-cli -h 127.0.0.1 -p 6379 ping"
