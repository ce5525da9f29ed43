#!/usr/bin/env bash
# Starts a throw-away PostgreSQL (Debian's packaged server, any version 12+) with pg_stat_statements
# and planning times tracked, durable like the harnesses' embedded one, and prints the
# -Dbench.postgres.url=... to hand to QueueBenchmark or DeliveryBenchmark: they then print the
# server time per statement and message of each scenario (see StatementProfile).
# Usage: polling-benchmarks/profile-server.sh [port]        stop: polling-benchmarks/profile-server.sh stop
set -euo pipefail
dir=/tmp/polling-profile-pg
bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
if [ -z "$bin" ]; then
  echo "No packaged PostgreSQL under /usr/lib/postgresql: apt-get install -y postgresql" >&2
  exit 1
fi
if [ "${1:-}" = "stop" ]; then
  su postgres -c "$bin/pg_ctl -D $dir/data stop" && rm -rf "$dir"
  exit 0
fi
port=${1:-5499}
rm -rf "$dir" && mkdir -p "$dir" && chown postgres "$dir"
su postgres -c "$bin/initdb -D $dir/data -A trust -U postgres" > /dev/null
su postgres -c "$bin/pg_ctl -D $dir/data -l $dir/log -w start -o '-p $port -k $dir -c max_connections=200 \
  -c fsync=on -c synchronous_commit=on -c full_page_writes=on \
  -c shared_preload_libraries=pg_stat_statements -c pg_stat_statements.track_planning=on'" > /dev/null
psql -q -h "$dir" -p "$port" -U postgres -c "CREATE EXTENSION pg_stat_statements"
echo "-Dbench.postgres.url=jdbc:postgresql://localhost:$port/postgres?user=postgres"
