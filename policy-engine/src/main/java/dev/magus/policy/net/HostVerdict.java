package dev.magus.policy.net;

import java.net.InetAddress;
import java.util.List;
import java.util.Objects;

/** The proxy's decision on one host: {@link NetworkPolicy#decide}. */
public sealed interface HostVerdict {

    /** Connect, to these addresses only (the ones that were checked), in order. */
    record Allowed(NetworkPolicy.HostGrant grant, List<InetAddress> addresses) implements HostVerdict {
        public Allowed {
            Objects.requireNonNull(grant, "grant");
            addresses = List.copyOf(addresses);
        }
    }

    /** No layer declares the host. */
    record NotDeclared() implements HostVerdict {
    }

    /** Declared by a pattern (or a name that is not this one) but resolves inside. */
    record Internal(InetAddress address, AddressClass addressClass) implements HostVerdict {
        public Internal {
            Objects.requireNonNull(address, "address");
            Objects.requireNonNull(addressClass, "addressClass");
        }
    }

    /** Declared, but the name has no address. */
    record Unresolved() implements HostVerdict {
    }
}
