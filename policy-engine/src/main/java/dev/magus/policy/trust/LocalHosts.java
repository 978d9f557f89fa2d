package dev.magus.policy.trust;

import dev.magus.policy.net.AddressClass;
import java.util.Locale;
import java.util.Set;

/**
 * Which declared hosts reach this machine, its network or the cloud's metadata service: a
 * literal address of any class but public, and the names that mean one ({@code localhost},
 * {@code *.localhost}, {@code *.internal}, {@code *.local}, the metadata services' names).
 * Pure: the written text is judged, nothing is resolved.
 */
final class LocalHosts {
    private static final Set<String> NAMES = Set.of("localhost", "metadata", "metadata.google.internal", "metadata.goog",
            "instance-data", "instance-data.ec2.internal", "host.docker.internal", "gateway.docker.internal", "ip6-localhost",
            "ip6-loopback");
    private static final Set<String> SUFFIXES = Set.of(".localhost", ".internal", ".local", ".lan", ".home.arpa", ".intranet",
            ".corp", ".in-addr.arpa", ".ip6.arpa");

    private LocalHosts() {
    }

    /** Why {@code written} reaches inside, or null when it names a public host. */
    static String why(String written) {
        String h = written.toLowerCase(Locale.ROOT).strip();
        if (h.startsWith("[") && h.endsWith("]")) {
            h = h.substring(1, h.length() - 1);
        }
        if (h.endsWith(".")) {
            h = h.substring(0, h.length() - 1);
        }
        if (h.equals("*")) {
            return "every host, this machine's and the local network's among them";
        }
        String bare = h.startsWith("*.") ? h.substring(2) : h;
        if (NAMES.contains(bare)) {
            return "a name for this machine or the cloud's metadata service";
        }
        for (String s : SUFFIXES) {
            if (bare.endsWith(s) || ("." + bare).equals(s)) {
                return "a name on this machine or the local network (" + s + ")";
            }
        }
        byte[] literal = literal(bare);
        if (literal != null) {
            AddressClass c = AddressClass.of(literal);
            if (c.internal()) {
                return c.description();
            }
        }
        return null;
    }

    /** The address {@code h} spells, when it is an IPv4 or IPv6 literal; null otherwise. Never resolves. */
    static byte[] literal(String h) {
        if (h.matches("[0-9]{1,3}(\\.[0-9]{1,3}){3}")) {
            String[] parts = h.split("\\.");
            byte[] a = new byte[4];
            for (int i = 0; i < 4; i++) {
                int v = Integer.parseInt(parts[i]);
                if (v > 255) {
                    return null;
                }
                a[i] = (byte) v;
            }
            return a;
        }
        if (h.indexOf(':') >= 0 && h.matches("[0-9a-f:.]+")) {
            try {
                // An IPv6 literal: InetAddress parses it without a lookup.
                return java.net.InetAddress.getByName(h).getAddress();
            } catch (java.net.UnknownHostException notALiteral) {
                return null;
            }
        }
        return null;
    }
}
