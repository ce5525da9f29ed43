package dev.polling.kubernetes;

import java.net.URL;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.temporal.ChronoUnit;

import org.jspecify.annotations.Nullable;

import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseSpec;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;

/** {@link LeaseStore} on {@code coordination.k8s.io/v1} Lease objects of one namespace, through the fabric8 client. */
final class Fabric8LeaseStore implements LeaseStore {

	private static final int CONFLICT = 409;

	private static final int NOT_FOUND = 404;

	private final KubernetesClient client;

	private final String namespace;

	private final String description;

	Fabric8LeaseStore(KubernetesClient client, String namespace, String namePrefix) {
		this.client = client;
		this.namespace = namespace;
		this.description = "Kubernetes Lease " + namePrefix + "* in namespace " + namespace + " at " + server(client);
	}

	/** The API server's scheme, host and port: never user info, path or query. */
	private static String server(KubernetesClient client) {
		try {
			URL url = client.getMasterUrl();
			if (url == null) {
				return "an unknown API server";
			}
			return url.getProtocol() + "://" + url.getHost() + ((url.getPort() < 0) ? "" : ":" + url.getPort());
		}
		catch (RuntimeException ex) {
			return "an unknown API server";
		}
	}

	@Override
	public @Nullable Observed get(String name) throws StoreFault {
		try {
			return observed(this.client.leases().inNamespace(this.namespace).withName(name).get());
		}
		catch (KubernetesClientException ex) {
			throw fault("read", name, ex);
		}
	}

	@Override
	public Write create(String name, LeaseRecord record) throws StoreFault {
		try {
			return written(this.client.leases().inNamespace(this.namespace).resource(lease(name, null, record)).create());
		}
		catch (KubernetesClientException ex) {
			if (ex.getCode() == CONFLICT) {
				return Write.CONFLICT;
			}
			throw fault("create", name, ex);
		}
	}

	@Override
	public Write update(String name, String resourceVersion, LeaseRecord record) throws StoreFault {
		try {
			return written(this.client.leases()
				.inNamespace(this.namespace)
				.resource(lease(name, resourceVersion, record))
				.lockResourceVersion(resourceVersion)
				.update());
		}
		catch (KubernetesClientException ex) {
			// 404: deleted since it was read, someone else's doing just like a conflicting write
			if (ex.getCode() == CONFLICT || ex.getCode() == NOT_FOUND) {
				return Write.CONFLICT;
			}
			throw fault("update", name, ex);
		}
	}

	@Override
	public String describe() {
		return this.description;
	}

	private StoreFault fault(String operation, String name, KubernetesClientException ex) {
		String detail;
		if (ex.getCode() > 0) {
			String message = (ex.getStatus() != null) ? ex.getStatus().getMessage() : null;
			detail = "HTTP " + ex.getCode() + ((message != null) ? " " + message : "");
		}
		else {
			// the client's message repeats the operation; the innermost cause says what went wrong
			Throwable root = ex;
			while (root.getCause() != null && root.getCause() != root) {
				root = root.getCause();
			}
			detail = (root.getMessage() != null) ? root.getClass().getSimpleName() + ": " + root.getMessage() : ex.getMessage();
		}
		return new StoreFault("could not " + operation + " Lease " + name + " in namespace " + this.namespace + " (" + detail + ")", ex);
	}

	private Lease lease(String name, @Nullable String resourceVersion, LeaseRecord record) {
		LeaseSpec spec = new LeaseSpec();
		spec.setHolderIdentity(record.holder());
		spec.setLeaseDurationSeconds(record.durationSeconds());
		spec.setAcquireTime(time(record.acquireTime()));
		spec.setRenewTime(time(record.renewTime()));
		spec.setLeaseTransitions(Math.toIntExact(record.transitions()));
		Lease lease = new Lease();
		lease.setMetadata(new ObjectMetaBuilder().withName(name).withNamespace(this.namespace).withResourceVersion(resourceVersion).build());
		lease.setSpec(spec);
		return lease;
	}

	private static Write written(@Nullable Lease lease) throws StoreFault {
		Observed observed = observed(lease);
		if (observed == null) {
			throw new StoreFault("the API server answered a write without the lease", null);
		}
		return new Write(observed);
	}

	private static @Nullable Observed observed(@Nullable Lease lease) {
		if (lease == null) {
			return null;
		}
		LeaseSpec spec = (lease.getSpec() != null) ? lease.getSpec() : new LeaseSpec();
		String holder = spec.getHolderIdentity();
		LeaseRecord record = new LeaseRecord((holder == null || holder.isEmpty()) ? null : holder,
				(spec.getLeaseDurationSeconds() != null) ? spec.getLeaseDurationSeconds() : 0, instant(spec.getAcquireTime()),
				instant(spec.getRenewTime()), (spec.getLeaseTransitions() != null) ? spec.getLeaseTransitions() : 0);
		String version = (lease.getMetadata() != null) ? lease.getMetadata().getResourceVersion() : null;
		return new Observed((version != null) ? version : "", record);
	}

	private static @Nullable ZonedDateTime time(@Nullable Instant instant) {
		// MicroTime: microseconds in UTC
		return (instant != null) ? instant.truncatedTo(ChronoUnit.MICROS).atZone(ZoneOffset.UTC) : null;
	}

	private static @Nullable Instant instant(@Nullable ZonedDateTime time) {
		return (time != null) ? time.toInstant() : null;
	}

}
