/**
 * JMX transport: the per-cluster MBean, the peer client and the connector server.
 */
@NullMarked
package dev.polling.core.jmx;

import org.jspecify.annotations.NullMarked;
