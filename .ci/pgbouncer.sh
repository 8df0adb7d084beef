#!/usr/bin/env bash
# Starts PgBouncer in transaction mode on 127.0.0.1:6432 in front of the local
# PostgreSQL (127.0.0.1:5432, trust auth), as the pooled deployments users run.
# Idempotent: when a PgBouncer already answers there, it only prints the URL.
set -euo pipefail

port="${PGBOUNCER_PORT:-6432}"
url="postgres://postgres@127.0.0.1:${port}/test"
dir="${PGBOUNCER_DIR:-/var/run/svc-pgbouncer}"

answers() {
  psql "$url" -Atqc 'SELECT 1' >/dev/null 2>&1
}

if answers; then
  echo "PgBouncer is up: $url"
  exit 0
fi

bin="$(command -v pgbouncer || true)"
[ -n "$bin" ] || bin=/usr/sbin/pgbouncer
[ -x "$bin" ] || { echo "pgbouncer is not installed (Debian package pgbouncer)" >&2; exit 1; }

mkdir -p "$dir"
# trust auth still wants the user named in the auth file.
printf '"postgres" ""\n' >"$dir/userlist.txt"
cat >"$dir/pgbouncer.ini" <<EOF
[databases]
test = host=127.0.0.1 port=5432 dbname=test

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = ${port}
unix_socket_dir =
auth_type = trust
auth_file = ${dir}/userlist.txt
pool_mode = transaction
default_pool_size = 40
max_client_conn = 1000
ignore_startup_parameters = extra_float_digits
logfile = ${dir}/pgbouncer.log
pidfile = ${dir}/pgbouncer.pid
admin_users = postgres
EOF

# A stale pid file from a PgBouncer that died keeps a new one from starting.
if [ -f "$dir/pgbouncer.pid" ] && ! kill -0 "$(cat "$dir/pgbouncer.pid")" 2>/dev/null; then
  rm -f "$dir/pgbouncer.pid"
fi

# PgBouncer refuses to run as root: as root, hand the files to postgres and let it switch.
if [ "$(id -u)" -eq 0 ]; then
  chown -R postgres "$dir"
  "$bin" -d -u postgres "$dir/pgbouncer.ini"
else
  "$bin" -d "$dir/pgbouncer.ini"
fi

for _ in $(seq 1 50); do
  if answers; then
    echo "PgBouncer is up: $url"
    exit 0
  fi
  sleep 0.2
done
echo "PgBouncer did not answer on $url; its log:" >&2
tail -n 20 "$dir/pgbouncer.log" >&2 || true
exit 1
