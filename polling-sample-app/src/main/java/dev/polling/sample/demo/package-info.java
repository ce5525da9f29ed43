/**
 * The demo behind the README's first command: mail server, three instances, a SIGKILL, a summary.
 */
@NullMarked
package dev.polling.sample.demo;

import org.jspecify.annotations.NullMarked;
