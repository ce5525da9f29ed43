#!/usr/bin/env bash
# Builds what the harnesses need (without tests) and runs one harness in its own JVM.
# Usage: polling-benchmarks/run.sh <SimpleClassName> [args...]   e.g. run.sh DecisionBenchmark
#        e.g. run.sh QueueScalingBenchmark 20000 3   (worker JVMs: 1, 2 and 4 instances against db-scheduler)
set -euo pipefail
cd "$(dirname "$0")/.."
main="$1"; shift
./mvnw -B -q -pl polling-benchmarks -am package -DskipTests >/dev/null
cp="polling-benchmarks/target/classes:$(cat polling-benchmarks/target/classpath.txt)"
exec java -cp "$cp" "dev.polling.benchmarks.$main" "$@"
