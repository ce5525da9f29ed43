/**
 * The end-to-end runs of the sample app: the demo behind the README's first command (mail server,
 * three instances, a SIGKILL, a summary), the chaos run and the soak (an hour of steady work with
 * restarts, sampled every minute), each instance a JVM of its own started from the sample's jar.
 */
@NullMarked
package dev.polling.e2e;

import org.jspecify.annotations.NullMarked;
