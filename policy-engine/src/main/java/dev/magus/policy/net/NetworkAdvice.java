package dev.magus.policy.net;

import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/**
 * What to tell a person about one refused connection, as {@code DenialAdvice} does for paths:
 * the YAML that lets the retry through, or, for a target only an attack goes for, nothing. The
 * cloud metadata service hands out the machine's credentials to whoever asks from inside it;
 * no build needs it, so a connection to it (by name, by address, or by a name that resolved to
 * a link-local address) is never given a hint.
 */
public sealed interface NetworkAdvice {

    /** {@code hint} or {@code attack}: the diagnostic's {@code class} detail. */
    String label();

    record Hint(String yaml) implements NetworkAdvice {
        @Override
        public String label() {
            return "hint";
        }
    }

    record AttackLike(String why) implements NetworkAdvice {
        @Override
        public String label() {
            return "attack";
        }
    }

    /** Names and addresses of cloud metadata services (AWS, GCP, Azure, Alibaba, Oracle, OpenStack). */
    Set<String> METADATA = Set.of("169.254.169.254", "[fd00:ec2::254]", "metadata.google.internal", "metadata",
            "metadata.goog", "100.100.100.200", "169.254.170.2", "instance-data", "instance-data.ec2.internal");

    /**
     * @param host     the host as the client named it
     * @param resolved the class of the address it resolved to, when it was resolved
     */
    static NetworkAdvice classify(String host, Optional<AddressClass> resolved) {
        String h = HostPattern.canonical(host);
        if (METADATA.contains(h)) {
            return new AttackLike(h + " is a cloud metadata service: it hands the machine's credentials to anyone"
                    + " who asks from inside, and no build needs it");
        }
        if (resolved.isPresent() && resolved.get() == AddressClass.LINK_LOCAL) {
            return new AttackLike(h + " resolves to a link-local address, where the cloud metadata service lives");
        }
        return new Hint(yaml(h));
    }

    /** The {@code sandbox.network} lines that declare {@code host}. */
    static String yaml(String host) {
        String h = HostPattern.canonical(host).toLowerCase(Locale.ROOT);
        return "sandbox:\n  network:\n    mode: proxy\n    allow: [\"" + h + "\"]\n";
    }

    /** The lines that let a child connect to (or listen on) {@code port} directly. */
    static String portYaml(String key, int port) {
        return "sandbox:\n  network:\n    mode: proxy\n    " + key + ": [" + port + "]\n";
    }
}
