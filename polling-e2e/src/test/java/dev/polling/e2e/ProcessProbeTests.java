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
