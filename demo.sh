#!/usr/bin/env bash
# The demo: a mail server and three instances of the sample app polling three IMAP mailboxes,
# one polling cluster per mailbox; sends mails, kills the holder of one cluster with SIGKILL,
# restarts it, and checks that every mail was processed exactly once.
#   ./demo.sh            300 mails
#   ./demo.sh 600        600 mails (or DEMO_MAILS=600 ./demo.sh)
# Needs only a JDK 17+; builds the sample app and polling-e2e (the driver) with the Maven wrapper if
# needed. Logs: demo-work/logs.
set -euo pipefail
cd "$(dirname "$0")"

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
  echo "demo: building the sample app and polling-e2e (./mvnw -B -q -DskipTests -pl polling-e2e -am package)"
  # without the old jars: Maven keeps an up-to-date application jar (and Spring Boot then does not
  # repackage it) when only polling-core, polling-jdbc or the starter changed, so the old library would run
  rm -f "$sample_jar" "$e2e_jar" "$instance_jar"
  ./mvnw -B -q -DskipTests -pl polling-e2e -am package
fi

java=java
if [ -n "${JAVA_HOME:-}" ] && [ -x "$JAVA_HOME/bin/java" ]; then java="$JAVA_HOME/bin/java"; fi
mkdir -p demo-work
# the driver (polling-e2e) starts the mail server from its own jar and each instance from the sample's
# jar, with polling-e2e's instance jar on the class path (Spring Boot's loader.path)
exec "$java" -Dloader.main=dev.polling.e2e.DemoDriver -Ddemo.sample-jar="$sample_jar" -Ddemo.instance-jar="$instance_jar" \
  -cp "$e2e_jar" org.springframework.boot.loader.launch.PropertiesLauncher "$@"
