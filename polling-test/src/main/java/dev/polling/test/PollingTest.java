package dev.polling.test;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.springframework.test.context.ContextCustomizerFactories;

/**
 * Scripts the peers of a Spring Boot test's application: the {@code PollingManager} asks
 * {@link ScriptedPeers} instead of other instances over JMX, so a test can put the application in
 * any situation of a cluster without a second JVM. Use it beside {@code @SpringBootTest}:
 *
 * <pre class="code">
 * &#64;SpringBootTest
 * &#64;PollingTest(holding = "MAILBOX_1", peerHolding = "MAILBOX_2")
 * class MailboxTests {
 *
 *     &#64;Autowired
 *     ScriptedPeers peers;   // change the script during the test
 * }
 * </pre>
 *
 * Every cluster not named here has idle peers (this instance is granted it at its first
 * decision). Without configured peers, one scripted peer ({@value ScriptedPeers#PEER_ID}) is
 * added, so the application does not run standalone. Clusters coordinated through the database
 * ({@code coordination: jdbc}) are not scripted.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
@ContextCustomizerFactories(PollingTestContextCustomizerFactory.class)
public @interface PollingTest {

	/**
	 * Clusters this instance holds when the test starts: their peers are idle and the instance has
	 * been granted them before the first test method runs.
	 */
	String[] holding() default {};

	/**
	 * Clusters a peer holds: the peers answer that they polled a moment ago, so this instance is
	 * refused them.
	 */
	String[] peerHolding() default {};

	/**
	 * Clusters whose peers do not answer (as after the peer timeout): what this instance then does
	 * follows {@code polling.jmx.unreachable-peer-policy}.
	 */
	String[] peerUnreachable() default {};

}
