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

# the jars, built when missing or stale, and the java to run them with
source polling-e2e/jars.sh demo
mkdir -p demo-work
# the driver (polling-e2e) starts the mail server from its own jar and each instance from the sample's
# jar, with polling-e2e's instance jar on the class path (Spring Boot's loader.path)
run_driver DemoDriver "$@"
