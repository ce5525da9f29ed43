#!/usr/bin/env bash
# Checks the README's quick start the way a new user meets it: takes the snippets marked
# <!-- quickstart:... --> from README.md, makes a new application of them in a scratch directory
# outside the repository, builds it against the starter installed from this repository, starts the
# two instances with the README's command lines, and checks through /actuator/polling and the logs
# that exactly one of them polls, and that the other takes over when the holder is stopped.
#
#   docs/quickstart-check.sh             (QUICKSTART_OFFLINE=1: Maven offline; QUICKSTART_KEEP=1: keep the scratch directory)
#
# The starter is installed into a local repository inside the scratch directory (with ~/.m2 as a
# read-only tail), so ~/.m2 is left as it was; what ~/.m2 lacks (the Spring Boot Maven plugin's
# dependencies, say) is downloaded into the scratch directory. Needs a JDK 17+, curl and free ports
# 8081, 8082, 9011 and 9012 (those of the quick start). Takes a few minutes; not part of ./mvnw verify.
# Last line: "quickstart: OK ..." or "quickstart: FAILED ...".
set -euo pipefail

repo="$(cd "$(dirname "$0")/.." && pwd)"
readme="$repo/README.md"
work="$(mktemp -d "${TMPDIR:-/tmp}/polling-quickstart.XXXXXX")"
app="$work/app"
tail_repo="${MAVEN_TAIL_REPOSITORY:-$HOME/.m2/repository}"
maven=("$repo/mvnw" -B -q "-Dmaven.repo.local=$work/m2" "-Dmaven.repo.local.tail=$tail_repo")
if [ "${QUICKSTART_OFFLINE:-}" = 1 ]; then maven+=(-o); fi
java=java
if [ -n "${JAVA_HOME:-}" ] && [ -x "$JAVA_HOME/bin/java" ]; then java="$JAVA_HOME/bin/java"; fi

say() { echo "quickstart: $*"; }
fail() { say "FAILED $*"; exit 1; }

pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  if [ "${QUICKSTART_KEEP:-}" = 1 ]; then say "scratch directory kept: $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT

# The fenced block that follows <!-- quickstart:NAME --> in the README.
snippet() {
  awk -v marker="<!-- quickstart:$1 -->" '
    $0 == marker { found = 1; next }
    found && /^```/ { if (inside) exit; inside = 1; next }
    inside { print }' "$readme"
}

dependencies="$(snippet dependencies)"
yaml="$(snippet application.yml)"
code="$(snippet java)"
commands="$(snippet run | grep '^java -jar ' || true)"
for part in dependencies yaml code commands; do
  [ -n "${!part}" ] || fail "README.md has no quick start snippet for '$part' (markers <!-- quickstart:... -->)"
done
[ "$(printf '%s\n' "$commands" | wc -l)" -eq 2 ] || fail "the quick start should start two instances; found: $commands"

for port in 8081 8082 9011 9012; do
  if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then fail "port $port is in use; the quick start needs it"; fi
done
command -v curl >/dev/null || fail "curl is needed to read /actuator/polling"

say "installing the starter from $repo into $work/m2"
"${maven[@]}" -f "$repo/pom.xml" install -DskipTests -pl polling-spring-boot-starter -am

boot_version="$(sed -n 's:.*<spring-boot.version>\(.*\)</spring-boot.version>.*:\1:p' "$repo/pom.xml" | head -1)"
package="$(printf '%s\n' "$code" | sed -n 's/^package \(.*\);$/\1/p')"
class="$(printf '%s\n' "$code" | sed -n 's/^public class \([A-Za-z0-9_]*\).*/\1/p' | head -1)"
[ -n "$package" ] && [ -n "$class" ] || fail "the Java snippet needs a package and a public class"
mkdir -p "$app/src/main/java/${package//.//}" "$app/src/main/resources"
printf '%s\n' "$code" > "$app/src/main/java/${package//.//}/$class.java"
printf '%s\n' "$yaml" > "$app/src/main/resources/application.yml"
# A minimal Spring Boot build around the README's dependencies, with the plugin versions this
# repository builds with
cat > "$app/pom.xml" <<EOF
<?xml version="1.0" encoding="UTF-8"?>
<project xmlns="http://maven.apache.org/POM/4.0.0" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"
         xsi:schemaLocation="http://maven.apache.org/POM/4.0.0 https://maven.apache.org/xsd/maven-4.0.0.xsd">
  <modelVersion>4.0.0</modelVersion>
  <groupId>com.example</groupId>
  <artifactId>quickstart</artifactId>
  <version>0.0.1-SNAPSHOT</version>
  <properties>
    <maven.compiler.release>17</maven.compiler.release>
    <project.build.sourceEncoding>UTF-8</project.build.sourceEncoding>
  </properties>
  <dependencyManagement>
    <dependencies>
      <dependency>
        <groupId>org.springframework.boot</groupId>
        <artifactId>spring-boot-dependencies</artifactId>
        <version>$boot_version</version>
        <type>pom</type>
        <scope>import</scope>
      </dependency>
    </dependencies>
  </dependencyManagement>
  <dependencies>
$dependencies
  </dependencies>
  <build>
    <finalName>app</finalName>
    <plugins>
      <plugin><artifactId>maven-resources-plugin</artifactId><version>3.3.1</version></plugin>
      <plugin><artifactId>maven-compiler-plugin</artifactId><version>3.14.0</version></plugin>
      <plugin><artifactId>maven-surefire-plugin</artifactId><version>3.5.3</version></plugin>
      <plugin><artifactId>maven-jar-plugin</artifactId><version>3.4.2</version></plugin>
      <plugin>
        <groupId>org.springframework.boot</groupId>
        <artifactId>spring-boot-maven-plugin</artifactId>
        <version>$boot_version</version>
        <executions><execution><goals><goal>repackage</goal></goals></execution></executions>
      </plugin>
    </plugins>
  </build>
</project>
EOF
say "building the application in $app"
"${maven[@]}" -f "$app/pom.xml" package -DskipTests
[ -f "$app/target/app.jar" ] || fail "no application jar was built"

# Start the two instances with the README's command lines (from the application's directory).
names=()
ports=()
while read -r line; do
  read -r -a words <<< "$line"
  name="$(printf '%s\n' "$line" | sed -n 's/.*--polling.instance-id=\([^ ]*\).*/\1/p')"
  port="$(printf '%s\n' "$line" | sed -n 's/.*--server.port=\([0-9]*\).*/\1/p')"
  [ -n "$name" ] && [ -n "$port" ] || fail "cannot read instance id and port from: $line"
  (cd "$app" && exec "$java" "${words[@]:1}") > "$work/$name.log" 2>&1 &
  pids+=("$!")
  names+=("$name")
  ports+=("$port")
  say "started instance '$name' (pid $!): $line"
done <<< "$commands"

polling() { curl -s -m 2 "http://127.0.0.1:$1/actuator/polling" || true; }
holding() { polling "$1" | grep -o '"holding":[a-z]*' | head -1 | cut -d: -f2; }

deadline=$((SECONDS + 90))
for i in 0 1; do
  until [ -n "$(holding "${ports[$i]}")" ]; do
    kill -0 "${pids[$i]}" 2>/dev/null || fail "instance '${names[$i]}' ended; log: $(tail -20 "$work/${names[$i]}.log")"
    [ $SECONDS -lt $deadline ] || fail "instance '${names[$i]}' did not answer /actuator/polling within 90 s"
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
polls_holder="$(grep -c 'polling the mailbox' "$work/${names[$holder]}.log" || true)"
polls_standby="$(grep -c 'polling the mailbox' "$work/${names[$standby]}.log" || true)"
[ "$polls_holder" -gt 0 ] || fail "the holder '${names[$holder]}' never ran the polling method"
[ "$polls_standby" -eq 0 ] || fail "the standby '${names[$standby]}' ran the polling method $polls_standby times"
polling "${ports[$standby]}" | grep -q "\"holder\":{\"kind\":\"peer\",\"peerId\":\"${names[$holder]}\"" \
  || fail "the standby's /actuator/polling does not name '${names[$holder]}' as holder: $(polling "${ports[$standby]}")"
say "exactly one polls: '${names[$holder]}' ran the method $polls_holder times in 10 s of samples, '${names[$standby]}' 0 times and names '${names[$holder]}' as holder"

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
until [ "$(grep -c 'polling the mailbox' "$work/${names[$standby]}.log" || true)" -gt "$before" ]; do
  [ $((SECONDS - stopped)) -lt 20 ] || fail "'${names[$standby]}' holds but did not poll within 20 s"
  sleep 0.2
done
grep -h ' WARN .* d\.p\.' "$work"/*.log | sed 's/^/quickstart: log: /' || true
say "OK exactly one of two instances polls ('${names[$holder]}'); '${names[$standby]}' held the cluster ${took} s after '${names[$holder]}' was stopped, and polled"
