#!/usr/bin/env bash
# The soak (issue 33 §3; not part of ./mvnw verify): the demo's mail server and three sample-app
# instances in JVMs of their own, the chaos profile's 20 tick clusters decided together every second,
# mails at a steady rate (each one a queue message, an order, a confirmation through the delivery
# guard and a follow-up job), one instance restarted (SIGTERM, start) every 10 minutes, round-robin.
# Every minute, per instance: heap after a forced full GC, metaspace, live threads, open file
# descriptors, JMX connections as client and as server, database connections; the H2 server's
# sessions and the rows per state. At the end: no mail lost or processed twice, no one-second period
# in which two instances ran one tick cluster, and per series whether it stayed within ±5 % from
# minute 10 on (SoakDriver's Javadoc, docs/reliability.md "Soak (60 minutes)").
#   ./soak.sh              60 minutes, a restart every 10 minutes, 2 mails per second
#   ./soak.sh 3 1          a 3-minute trial with a restart every minute
#   ./soak.sh 60 10 5      ... at 5 mails per second
#   ./soak.sh 20 10 2 diagnose   ... and every minute a class histogram and a thread dump per instance
#                          (one more attach: a full GC and a safepoint; soak-classes.tsv, soak-threads.tsv)
# Always beside the series (SoakDiagnosis, /proc only): JMX TCP connections per peer and thread names
# per second, each client connection's lifetime (soak-seconds.tsv, soak-jmx-tcp-lifetimes.tsv).
# Needs a JDK 17+ with jcmd, and Linux (/proc). Logs and soak-report.md (the tables): soak-work/.
# Last line: "soak: OK ..." or "soak: MISSED ..." (each missed goal and by how much).
set -euo pipefail
cd "$(dirname "$0")"

# the jars, built when missing or stale, and the java to run them with
source polling-e2e/jars.sh soak
mkdir -p soak-work
run_driver SoakDriver "$@"
