/**
 * isy-polling 4.0.0's API, served by polling-core: {@link de.bund.bva.isyfact.polling.PollingVerwalter},
 * {@link de.bund.bva.isyfact.polling.PollingMBean}.
 */
package de.bund.bva.isyfact.polling;
