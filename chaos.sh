#!/usr/bin/env bash
# The chaos run: the demo's mail server and three sample-app instances with the profile chaos (20 more
# clusters TICK_01..TICK_20 decided together every 4 s on peer connections that the peers' JMX idle
# timeout of 2 s closes between two ticks), 7,200 mails over three mailboxes, 24 faults chosen at random
# from a seed (SIGKILL of a holder, restarted a few seconds later; SIGSTOP of a holder for 3-12 s, then
# SIGCONT) and three fixed phases: a fourth instance with another wait time for five clusters, a second
# process with instance-1's id, a rolling restart of all three. Samples every instance's
# /actuator/polling and checks that no two instances hold a cluster at once, that no mail is lost or
# processed twice, and each phase's expected refusals (ChaosDriver's Javadoc, docs/reliability.md).
#   ./chaos.sh                      seed 42, both policies one after the other
#   ./chaos.sh 7                    seed 7, both policies
#   ./chaos.sh 7 proceed            seed 7, one policy (proceed | presume-last-known)
#   ./chaos.sh 7 proceed 3000 180 20   ... with mails, send seconds and faults
# Logs: chaos-work/<policy>/logs. Last line per policy: "chaos: OK ..." or "chaos: FAILED ...".
set -euo pipefail
cd "$(dirname "$0")"
seed="${1:-42}"
policies="${2:-proceed presume-last-known}"
shift $(( $# > 2 ? 2 : $# ))

sample_jar=polling-sample-app/target/polling-sample-app-0.1.0-SNAPSHOT.jar
e2e_jar=polling-e2e/target/polling-e2e-0.1.0-SNAPSHOT-exec.jar
instance_jar=polling-e2e/target/polling-e2e-0.1.0-SNAPSHOT-instance.jar
stale=false
for jar in "$sample_jar" "$e2e_jar" "$instance_jar"; do
  if [ ! -f "$jar" ] || [ -n "$(find pom.xml polling-core polling-jdbc polling-kubernetes polling-shedlock polling-spring-boot-starter \
        polling-console polling-sample-app polling-e2e -path '*/target' -prune -o -type f -newer "$jar" -print -quit)" ]; then
    stale=true
  fi
done
if $stale; then
  echo "chaos: building the sample app and polling-e2e (./mvnw -B -q -DskipTests -pl polling-e2e -am package)"
  # without the old jars: Maven keeps an up-to-date application jar (and Spring Boot then does not
  # repackage it) when only polling-core, polling-jdbc or the starter changed, so the old library would run
  rm -f "$sample_jar" "$e2e_jar" "$instance_jar"
  ./mvnw -B -q -DskipTests -pl polling-e2e -am package
fi
java=java
if [ -n "${JAVA_HOME:-}" ] && [ -x "$JAVA_HOME/bin/java" ]; then java="$JAVA_HOME/bin/java"; fi
mkdir -p chaos-work
status=0
for policy in $policies; do
  "$java" -Dloader.main=dev.polling.e2e.ChaosDriver -Ddemo.sample-jar="$sample_jar" -Ddemo.instance-jar="$instance_jar" \
    -cp "$e2e_jar" org.springframework.boot.loader.launch.PropertiesLauncher "$seed" "$policy" "$@" || status=1
done
exit $status
