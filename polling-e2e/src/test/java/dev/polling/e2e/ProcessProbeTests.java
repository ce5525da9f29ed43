package dev.polling.e2e;

import java.io.IOException;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIOException;

class ProcessProbeTests {

	@Test
	void heapInfoOfTheSerialCollectorGivesBothGenerationsAndTheMetaspace() throws IOException {
		String output = """
				12345:
				Command executed successfully
				 def new generation   total 78656K, used 1200K [0x00000000f0000000, 0x00000000f5550000, 0x00000000f5550000)
				  eden space 69952K,   1% used [0x00000000f0000000, 0x00000000f0000000, 0x00000000f4450000)
				  from space 8704K,   0% used [0x00000000f4450000, 0x00000000f4450000, 0x00000000f4cd0000)
				 tenured generation   total 174784K, used 42242K [0x00000000f5550000, 0x0000000100000000, 0x0000000100000000)
				   the space 174784K,  24% used [0x00000000f5550000, 0x00000000f5780b08, 0x00000000f5780c00, 0x0000000100000000)
				 Metaspace       used 58965K, committed 59152K, reserved 1114112K
				  class space    used 7062K, committed 7152K, reserved 1048576K
				""";

		assertThat(ProcessProbe.parseHeapInfo(output)).isEqualTo(new ProcessProbe.Heap(43442, 58965));
	}

	@Test
	void outputWithoutHeapFiguresIsAnError() {
		assertThatIOException().isThrownBy(() -> ProcessProbe.parseHeapInfo("12345:\ncom.sun.tools.attach.AttachNotSupportedException"))
			.withMessageContaining("no heap figures");
	}

	@Test
	void procNetTcpLinesGivePortsStateAndInode() {
		List<String> lines = List.of(
				"  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode",
				"   0: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 40001 1 0000000000000000 100 0 0 10 0",
				"   1: 0100007F:C350 0100007F:1F90 01 00000000:00000000 02:000A7D8E 00000000     0        0 40002 2 0000000000000000 20 4 30 10 -1");

		assertThat(ProcessProbe.parseTcp(lines)).containsExactly(new ProcessProbe.TcpSocket(8080, 0, "0A", 40001),
				new ProcessProbe.TcpSocket(50000, 8080, "01", 40002));
	}

	@Test
	void aPrometheusMetricIsSummedOverItsLabelSetsAndNotConfusedWithLongerNames() {
		String page = """
				# HELP jvm_threads_live_threads The current number of live threads
				# TYPE jvm_threads_live_threads gauge
				jvm_threads_live_threads 57.0
				jvm_threads_live_threads_total{a="b"} 1000.0
				e2e_jmx_server_connections{application="polling-sample"} 4.0
				e2e_jmx_server_connections{application="other"} 2.0
				""";

		assertThat(ProcessProbe.prometheus(page, "jvm_threads_live_threads")).hasValue(57.0);
		assertThat(ProcessProbe.prometheus(page, "e2e_jmx_server_connections")).hasValue(6.0);
		assertThat(ProcessProbe.prometheus(page, "hikaricp_connections")).isEmpty();
	}

	@Test
	void aClassHistogramGivesEveryClassInItsOrderWithoutTheTotal() {
		String output = """
				12345:
				 num     #instances         #bytes  class name (module)
				-------------------------------------------------------
				   1:         40961        3744528  [B (java.base@17.0.15)
				   2:         38120         914880  java.lang.String (java.base@17.0.15)
				  10:            12            480  org.h2.mvstore.Page$Leaf
				Total        409184       23456789
				""";

		assertThat(ProcessProbe.parseClassHistogram(output)).containsExactly(new ProcessProbe.ClassBytes("[B", 40961, 3744528),
				new ProcessProbe.ClassBytes("java.lang.String", 38120, 914880), new ProcessProbe.ClassBytes("org.h2.mvstore.Page$Leaf", 12, 480));
	}

	@Test
	void aThreadDumpCountsJavaThreadsPerNameWithDigitsAsHashAndLeavesTheJvmsOwnOut() {
		String dump = """
				2026-11-28 10:40:00
				Full thread dump OpenJDK 64-Bit Server VM (17.0.15+6-Debian-1deb12u1 mixed mode, sharing):

				"main" #1 prio=5 os_prio=0 cpu=2000.00ms elapsed=100.00s tid=0x00007f nid=0x10 waiting on condition  [0x00007f]
				   java.lang.Thread.State: TIMED_WAITING (sleeping)
					at java.lang.Thread.sleep(java.base@17.0.15/Native Method)

				"RMI TCP Connection(17)-127.0.0.1" #80 daemon prio=5 os_prio=0 cpu=1.00ms elapsed=10.00s tid=0x1 nid=0x50 runnable  [0x1]
				   java.lang.Thread.State: RUNNABLE

				"RMI TCP Connection(idle)" #81 daemon prio=5 os_prio=0 cpu=1.00ms elapsed=10.00s tid=0x2 nid=0x51 waiting on condition  [0x2]
				"polling-peer-12" #90 daemon prio=5 os_prio=0 cpu=1.00ms elapsed=1.00s tid=0x3 nid=0x52 waiting on condition  [0x3]
				"polling-peer-3" #91 daemon prio=5 os_prio=0 cpu=1.00ms elapsed=1.00s tid=0x4 nid=0x53 waiting on condition  [0x4]
				"VM Thread" os_prio=0 cpu=10.00ms elapsed=100.00s tid=0x5 nid=0x8 runnable
				"GC Thread#0" os_prio=0 cpu=10.00ms elapsed=100.00s tid=0x6 nid=0x9 runnable
				JNI global refs: 20, weak refs: 0
				""";

		assertThat(ProcessProbe.javaThreadGroups(dump)).containsExactlyInAnyOrderEntriesOf(
				java.util.Map.of("main", 1, "RMI TCP Connection(#)-#.#.#.#", 1, "RMI TCP Connection(idle)", 1, "polling-peer-#", 2));
	}

	@Test
	void theThreadsOfThisProcessAreFoundByTheirLinuxNames() throws InterruptedException {
		java.util.concurrent.CountDownLatch running = new java.util.concurrent.CountDownLatch(2);
		java.util.concurrent.CountDownLatch done = new java.util.concurrent.CountDownLatch(1);
		List<Thread> threads = new java.util.ArrayList<>();
		for (int i = 7; i <= 8; i++) {
			Thread thread = new Thread(() -> {
				running.countDown();
				try {
					done.await();
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
				}
			}, "probe-test-" + i);
			thread.start();
			threads.add(thread);
		}
		try {
			running.await();
			assertThat(ProcessProbe.nativeThreadGroups(ProcessHandle.current().pid())).containsEntry("probe-test-#", 2);
		}
		finally {
			done.countDown();
			for (Thread thread : threads) {
				thread.join();
			}
		}
	}

	@Test
	void thisProcessHasDescriptorsAndItsListeningSocketIsFound() throws IOException {
		long pid = ProcessHandle.current().pid();
		try (java.net.ServerSocket server = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress());
				java.net.Socket client = new java.net.Socket(java.net.InetAddress.getLoopbackAddress(), server.getLocalPort());
				java.net.Socket accepted = server.accept()) {
			assertThat(ProcessProbe.fileDescriptors(pid)).isGreaterThan(3);
			assertThat(ProcessProbe.sockets(pid, ProcessProbe.LISTEN)).anyMatch((s) -> s.localPort() == server.getLocalPort());
			// the client end and the accepted end: only the client's remote port is the server's
			assertThat(ProcessProbe.connectionsTo(pid, java.util.Set.of(server.getLocalPort()))).isEqualTo(1);
		}
	}

}
