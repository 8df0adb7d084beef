#!/usr/bin/env bash
# A Redis Cluster of 3 masters and 3 replicas on 127.0.0.1:7000-7005, for the
# redis adapter's cluster and failover tests. Idempotent: a cluster that is up
# and ok is left alone; a node that is down (a failover test killed it, say) is
# started again and rejoins; nodes that never formed a cluster are joined into one.
# Nothing is persisted but each node's cluster file (nodes-<port>.conf).
set -euo pipefail

host=127.0.0.1
ports=(7000 7001 7002 7003 7004 7005)
# Short, so a killed master's replica takes over within a few seconds.
node_timeout_ms="${REDIS_CLUSTER_NODE_TIMEOUT_MS:-2000}"

root="${REDIS_CLUSTER_DIR:-/var/lib/redis-cluster}"
if ! mkdir -p "$root" 2>/dev/null || [ ! -w "$root" ]; then
  root="${TMPDIR:-/tmp}/redis-cluster"
  mkdir -p "$root"
fi

cli() { redis-cli -h "$host" -p "$1" "${@:2}"; }
answers() { [ "$(cli "$1" ping 2>/dev/null)" = "PONG" ]; }
info_field() { cli "$1" cluster info 2>/dev/null | tr -d '\r' | sed -n "s/^$2://p"; }
replica_synced() { # a master, or a replica whose link to its master is up
  local replication
  replication="$(cli "$1" info replication 2>/dev/null | tr -d '\r')"
  ! grep -q '^role:slave' <<<"$replication" || grep -q '^master_link_status:up' <<<"$replication"
}
cluster_ok() {
  for port in "${ports[@]}"; do answers "$port" && replica_synced "$port" || return 1; done
  [ "$(info_field "${ports[0]}" cluster_state)" = "ok" ] &&
    [ "$(info_field "${ports[0]}" cluster_known_nodes)" = "${#ports[@]}" ] &&
    [ "$(cli "${ports[0]}" cluster nodes 2>/dev/null | awk '$3 ~ /slave/ && $3 !~ /fail/' | wc -l)" = "$((${#ports[@]} / 2))" ]
}

start_node() {
  local port=$1 dir="$root/$1"
  mkdir -p "$dir"
  redis-server --daemonize yes --bind "$host" --port "$port" \
    --cluster-enabled yes --cluster-config-file "nodes-$port.conf" \
    --cluster-node-timeout "$node_timeout_ms" \
    --save "" --appendonly no --dir "$dir" --logfile "$dir/redis.log" --pidfile "$dir/redis.pid"
  for _ in $(seq 1 50); do
    answers "$port" && return 0
    sleep 0.1
  done
  echo "redis-cluster: node $port did not start; see $dir/redis.log" >&2
  return 1
}

wait_ok() { # seconds
  for _ in $(seq 1 $(($1 * 10))); do
    cluster_ok && return 0
    sleep 0.1
  done
  return 1
}

if cluster_ok; then
  cli "${ports[0]}" cluster nodes
  exit 0
fi

for port in "${ports[@]}"; do
  answers "$port" || start_node "$port"
done

# Restarted nodes that were part of the cluster rejoin on their own.
if [ "$(info_field "${ports[0]}" cluster_known_nodes)" != "1" ] && wait_ok 15; then
  cli "${ports[0]}" cluster nodes
  exit 0
fi

# Never formed, or broken beyond rejoining: start over from empty nodes.
for port in "${ports[@]}"; do
  cli "$port" flushall >/dev/null 2>&1 || true
  cli "$port" cluster reset hard >/dev/null
done
addresses=()
for port in "${ports[@]}"; do addresses+=("$host:$port"); done
redis-cli --cluster create "${addresses[@]}" --cluster-replicas 1 --cluster-yes >/dev/null
if ! wait_ok 30; then
  echo "redis-cluster: cluster_state is not ok after 30 s" >&2
  cli "${ports[0]}" cluster info >&2
  exit 1
fi
cli "${ports[0]}" cluster nodes
