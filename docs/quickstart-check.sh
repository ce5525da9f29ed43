#!/usr/bin/env bash
# Checks the README's quick start the way a new user meets it, as shown and nothing added: writes
# every file the README shows (<!-- quickstart:file PATH --> above a fenced block) verbatim into a
# new directory outside the repository, runs the lines of <!-- quickstart:run --> there (the build,
# then the two instances in the background with their log files), waits until one of the two holds
# the cluster, runs the lines of <!-- quickstart:check --> (each must succeed), and checks through
# /actuator/polling, /actuator/prometheus and the README's log files that exactly one of them polls,
# and that the other takes over when the holder is stopped.
#
#   docs/quickstart-check.sh             (QUICKSTART_OFFLINE=1: Maven offline; QUICKSTART_KEEP=1: keep the scratch directory)
#
# As the README asks, the starter is installed first (./mvnw install, here into a local repository
# inside the scratch directory with ~/.m2 as a read-only tail, so ~/.m2 is left as it was). The
# README's `mvn` is this repository's Maven wrapper, pointed at that local repository; what ~/.m2
# lacks (Spring Boot's parent and plugin, say) is downloaded into the scratch directory. The
# README's `java` is $JAVA_HOME/bin/java if JAVA_HOME is set, else the one on the PATH. Needs a JDK
# 17+, curl and free ports 8081, 8082, 9011 and 9012 (those of the quick start). Takes a few
# minutes; not part of ./mvnw verify.
# Last line: "quickstart: OK ..." or "quickstart: FAILED ...".
set -euo pipefail

repo="$(cd "$(dirname "$0")/.." && pwd)"
readme="$repo/README.md"
work="$(mktemp -d "${TMPDIR:-/tmp}/polling-quickstart.XXXXXX")"
app="$work/app"
tail_repo="${MAVEN_TAIL_REPOSITORY:-$HOME/.m2/repository}"
maven=("$repo/mvnw" -B -q "-Dmaven.repo.local=$work/m2" "-Dmaven.repo.local.tail=$tail_repo")
if [ "${QUICKSTART_OFFLINE:-}" = 1 ]; then maven+=(-o); fi

say() { echo "quickstart: $*"; }
fail() { say "FAILED $*"; exit 1; }

pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  if [ "${QUICKSTART_KEEP:-}" = 1 ]; then say "scratch directory kept: $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT

# The fenced block that follows the line $1 (a marker) in the README.
snippet() {
  awk -v marker="$1" '
    $0 == marker { found = 1; next }
    found && /^```/ { if (inside) exit; inside = 1; next }
    inside { print }' "$readme"
}

files="$(sed -n 's/^<!-- quickstart:file \(.*\) -->$/\1/p' "$readme")"
run="$(snippet '<!-- quickstart:run -->')"
check="$(snippet '<!-- quickstart:check -->')"
[ -n "$files" ] || fail "README.md shows no file of the quick start (markers <!-- quickstart:file PATH -->)"
for part in run check; do
  [ -n "${!part}" ] || fail "README.md has no quick start block '$part' (marker <!-- quickstart:$part -->)"
done
for file in pom.xml src/main/resources/application.yml; do
  printf '%s\n' "$files" | grep -qx "$file" || fail "README.md's quick start does not show $file"
done
printf '%s\n' "$files" | grep -q '^src/main/java/.*\.java$' || fail "README.md's quick start shows no Java file"
[ "$(printf '%s\n' "$run" | grep -c '^java -jar .*&$')" -eq 2 ] \
  || fail "the quick start should start two instances in the background; its run lines: $run"

for port in 8081 8082 9011 9012; do
  if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then fail "port $port is in use; the quick start needs it"; fi
done
command -v curl >/dev/null || fail "curl is needed to read /actuator/polling"

say "installing the starter from $repo into $work/m2"
"${maven[@]}" -f "$repo/pom.xml" install -DskipTests -pl polling-spring-boot-starter -am

# The README's files, verbatim
while read -r file; do
  case "$file" in /* | *..*) fail "README.md shows a file outside the application's directory: $file" ;; esac
  mkdir -p "$app/$(dirname "$file")"
  snippet "<!-- quickstart:file $file -->" > "$app/$file"
  [ -s "$app/$file" ] || fail "README.md's block for $file is empty"
  say "wrote $file ($(wc -l < "$app/$file") lines) as README.md shows it"
done <<< "$files"

# The README's mvn and java: this repository's wrapper on the scratch local repository; the JDK
mkdir -p "$work/bin"
{
  echo '#!/usr/bin/env bash'
  printf 'exec'; printf ' %q' "${maven[@]}"; printf ' "$@"\n'
} > "$work/bin/mvn"
chmod +x "$work/bin/mvn"
PATH="$work/bin:$PATH"
if [ -n "${JAVA_HOME:-}" ] && [ -x "$JAVA_HOME/bin/java" ]; then PATH="$JAVA_HOME/bin:$PATH"; fi
export PATH

# The README's run lines, verbatim, in the application's directory: the build in the foreground,
# each instance in the background (its id, HTTP port and log file read from its line)
cd "$app"
names=()
ports=()
logs=()
while read -r line; do
  [ -n "$line" ] || continue
  case "$line" in
    *'&')
      name="$(printf '%s\n' "$line" | sed -n 's/.*--polling.instance-id=\([^ ]*\).*/\1/p')"
      port="$(printf '%s\n' "$line" | sed -n 's/.*--server.port=\([0-9]*\).*/\1/p')"
      log="$(printf '%s\n' "$line" | sed -n 's/.* > *\([^ ]*\) .*/\1/p')"
      [ -n "$name" ] && [ -n "$port" ] && [ -n "$log" ] || fail "cannot read instance id, HTTP port and log file from: $line"
      eval "$line"
      pids+=("$!")
      names+=("$name")
      ports+=("$port")
      logs+=("$app/$log")
      say "\$ $line   (pid $!)"
      ;;
    *)
      say "\$ $line"
      eval "$line" || fail "the run line failed: $line"
      ;;
  esac
done <<< "$run"
[ -f "$app/target/app.jar" ] || fail "the run lines built no target/app.jar"

polling() { curl -s -m 2 "http://127.0.0.1:$1/actuator/polling" || true; }
holding() { polling "$1" | grep -o '"holding":[a-z]*' | head -1 | cut -d: -f2; }

# a bound to give up at, not a measurement: a start takes seconds on an idle machine, over a minute
# beside other builds on two cores
deadline=$((SECONDS + 300))
for i in 0 1; do
  until [ -n "$(holding "${ports[$i]}")" ]; do
    kill -0 "${pids[$i]}" 2>/dev/null || fail "instance '${names[$i]}' ended; log: $(tail -20 "${logs[$i]}")"
    [ $SECONDS -lt $deadline ] || fail "instance '${names[$i]}' did not answer /actuator/polling within 300 s; log: $(tail -20 "${logs[$i]}")"
    sleep 1
  done
done
say "both instances answer /actuator/polling"

holder=""
deadline=$((SECONDS + 30))
while [ -z "$holder" ]; do
  a="$(holding "${ports[0]}")"; b="$(holding "${ports[1]}")"
  if [ "$a" = true ] && [ "$b" = false ]; then holder=0; elif [ "$a" = false ] && [ "$b" = true ]; then holder=1; fi
  [ -n "$holder" ] || [ $SECONDS -lt $deadline ] || fail "no single holder within 30 s (holding: ${names[0]}=$a ${names[1]}=$b)"
  [ -n "$holder" ] || sleep 0.5
done
standby=$((1 - holder))

# ten seconds of samples: always the same single holder; only its log shows the polling method
for sample in $(seq 1 20); do
  a="$(holding "${ports[$holder]}")"; b="$(holding "${ports[$standby]}")"
  [ "$a" = true ] && [ "$b" = false ] || fail "sample $sample: holding ${names[$holder]}=$a ${names[$standby]}=$b"
  sleep 0.5
done
polls_holder="$(grep -c 'polling the mailbox' "${logs[$holder]}" || true)"
polls_standby="$(grep -c 'polling the mailbox' "${logs[$standby]}" || true)"
[ "$polls_holder" -gt 0 ] || fail "the holder '${names[$holder]}' never ran the polling method"
[ "$polls_standby" -eq 0 ] || fail "the standby '${names[$standby]}' ran the polling method $polls_standby times"
polling "${ports[$standby]}" | grep -q "\"holder\":{\"kind\":\"peer\",\"peerId\":\"${names[$holder]}\"" \
  || fail "the standby's /actuator/polling does not name '${names[$holder]}' as holder: $(polling "${ports[$standby]}")"
say "exactly one polls: '${names[$holder]}' ran the method $polls_holder times in 10 s of samples, '${names[$standby]}' 0 times and names '${names[$holder]}' as holder"

# the meters in Prometheus's format: polling_holding is 1 on the holder, 0 on the other
prometheus() { curl -s -m 5 "http://127.0.0.1:$1/actuator/prometheus" || true; }
for i in "$holder" "$standby"; do
  expected=0; [ "$i" = "$holder" ] && expected=1
  meter="$(prometheus "${ports[$i]}" | grep '^polling_holding{' | grep 'cluster="MAILBOX"' || true)"
  printf '%s\n' "$meter" | grep -Eq "[ ]$expected(\.0)?$" \
    || fail "'${names[$i]}' /actuator/prometheus should show polling_holding{cluster=\"MAILBOX\"} $expected; it shows: ${meter:-no polling_holding meter}"
done
say "/actuator/prometheus: polling_holding{cluster=\"MAILBOX\"} is 1 on '${names[$holder]}' and 0 on '${names[$standby]}' ($(prometheus "${ports[$holder]}" | grep -c '^polling_') polling samples)"

# health with the details the README's application.yml shows
health="$(curl -s -m 5 "http://127.0.0.1:${ports[$holder]}/actuator/health/polling" || true)"
printf '%s\n' "$health" | grep -q '"MAILBOX":{.*"holding":true' \
  || fail "'${names[$holder]}' /actuator/health/polling should show the cluster MAILBOX with its details (holding); it shows: $health"
say "/actuator/health/polling shows MAILBOX with its details on '${names[$holder]}'"

# the README's check lines, verbatim: each succeeds and prints something
while read -r line; do
  [ -n "$line" ] || continue
  say "\$ $line"
  output="$(eval "$line" 2>&1)" || fail "the check line failed: $line; it printed: $output"
  [ -n "$output" ] || fail "the check line printed nothing: $line"
  printf '%s\n' "$output" | cut -c1-200 | sed 's/^/quickstart:   /'
done <<< "$check"

# stop the holder: the other one polls at its next tick
kill "${pids[$holder]}"
wait "${pids[$holder]}" 2>/dev/null || true
stopped=$SECONDS
stopped_ms="$(date +%s%3N)"
until [ "$(holding "${ports[$standby]}")" = true ]; do
  [ $((SECONDS - stopped)) -lt 20 ] || fail "'${names[$standby]}' did not take over within 20 s after '${names[$holder]}' stopped"
  sleep 0.1
done
took="$(( ($(date +%s%3N) - stopped_ms) / 100 ))"
took="$((took / 10)).$((took % 10))"
before="$polls_standby"
until [ "$(grep -c 'polling the mailbox' "${logs[$standby]}" || true)" -gt "$before" ]; do
  [ $((SECONDS - stopped)) -lt 20 ] || fail "'${names[$standby]}' holds but did not poll within 20 s"
  sleep 0.2
done
grep -h ' WARN .* d\.p\.' "${logs[@]}" | sed 's/^/quickstart: log: /' || true
say "OK exactly one of two instances polls ('${names[$holder]}'); '${names[$standby]}' held the cluster ${took} s after '${names[$holder]}' was stopped, and polled"
