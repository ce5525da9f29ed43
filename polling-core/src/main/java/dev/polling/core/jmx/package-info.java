/**
 * JMX transport: the peer client (found through {@code META-INF/services/dev.polling.core.PeerClientFactory})
 * and the connector server. The MBean peers read and its contract ({@code ClusterMBean},
 * {@code JmxContract}, the MXBean interfaces) are in {@code dev.polling.core}.
 */
@NullMarked
package dev.polling.core.jmx;

import org.jspecify.annotations.NullMarked;
