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

# the jars, built when missing or stale, and the java to run them with
source polling-e2e/jars.sh chaos
mkdir -p chaos-work
status=0
for policy in $policies; do
  run_driver ChaosDriver "$seed" "$policy" "$@" || status=1
done
exit $status
