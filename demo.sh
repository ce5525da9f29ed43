#!/usr/bin/env bash
# The demo: a mail server and three instances of the sample app polling three IMAP mailboxes,
# one polling cluster per mailbox; sends mails, kills the holder of one cluster with SIGKILL,
# restarts it, and checks that every mail was processed exactly once.
#   ./demo.sh            300 mails
#   ./demo.sh 600        600 mails (or DEMO_MAILS=600 ./demo.sh)
# Needs only a JDK 17+; builds the sample app with the Maven wrapper if needed. Logs: demo-work/logs.
set -euo pipefail
cd "$(dirname "$0")"

jar=polling-sample-app/target/polling-sample-app-0.1.0-SNAPSHOT.jar
if [ ! -f "$jar" ] || [ -n "$(find pom.xml polling-core polling-jdbc polling-spring-boot-starter polling-console polling-sample-app \
      -path '*/target' -prune -o -type f -newer "$jar" -print -quit)" ]; then
  echo "demo: building the sample app (./mvnw -B -q -DskipTests -pl polling-sample-app -am package)"
  # without the old jar: Maven keeps an up-to-date application jar (and Spring Boot then does not
  # repackage it) when only polling-core, polling-jdbc or the starter changed, so the old library would run
  rm -f "$jar"
  ./mvnw -B -q -DskipTests -pl polling-sample-app -am package
fi

java=java
if [ -n "${JAVA_HOME:-}" ] && [ -x "$JAVA_HOME/bin/java" ]; then java="$JAVA_HOME/bin/java"; fi
mkdir -p demo-work
exec "$java" -Dloader.main=dev.polling.sample.demo.DemoDriver -cp "$jar" \
  org.springframework.boot.loader.launch.PropertiesLauncher "$@"
