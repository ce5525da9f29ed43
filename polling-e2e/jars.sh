# Sourced by demo.sh, chaos.sh and soak.sh (from the repository's root, with $1 naming the caller for its
# messages): sets sample_jar, e2e_jar, instance_jar and java, defines run_driver, and builds the sample app and
# polling-e2e with the Maven wrapper when a jar is missing or older than a source of a module it
# contains.
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
  echo "$1: building the sample app and polling-e2e (./mvnw -B -q -DskipTests -pl polling-e2e -am package)"
  # without the old jars: Maven keeps an up-to-date application jar (and Spring Boot then does not
  # repackage it) when only polling-core, polling-jdbc or the starter changed, so the old library would run
  rm -f "$sample_jar" "$e2e_jar" "$instance_jar"
  ./mvnw -B -q -DskipTests -pl polling-e2e -am package
fi
java=java
if [ -n "${JAVA_HOME:-}" ] && [ -x "$JAVA_HOME/bin/java" ]; then java="$JAVA_HOME/bin/java"; fi

# run_driver CLASS ARGS...: runs dev.polling.e2e.CLASS from polling-e2e's executable jar, handing it the
# jars the instances run from
run_driver() {
  local class="$1"
  shift
  "$java" -Dloader.main="dev.polling.e2e.$class" -Ddemo.sample-jar="$sample_jar" -Ddemo.instance-jar="$instance_jar" \
    -cp "$e2e_jar" org.springframework.boot.loader.launch.PropertiesLauncher "$@"
}
