package dev.magus.policy.lease;

import dev.magus.events.MagusEnv;
import dev.magus.events.Code;
import dev.magus.events.Diagnostic;
import dev.magus.events.Layer;
import dev.magus.events.Operation;
import dev.magus.events.SandboxException;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The lease a narrowed run hands its children in {@code MAGUS_LEASE}, so that a nested magus is
 * held to it although it cannot read the state dir (no run is granted it).
 *
 * <p>A variable is safe here because it can only narrow: a nested magus applies it on top of
 * whatever its own lookup finds, and it runs inside the parent's Landlock domain, so a child that
 * rewrites it gains nothing; one that drops it makes the nested magus look for the marker, which
 * it cannot read, and refuse (MGS2004). A forwarded run applies it beside the server's own lease.
 * Format: {@code job=ID&checkout=PATH&write=GLOB…}, values form-urlencoded (UTF-8); one that
 * cannot be read is MGS2004 naming the variable, never "no lease".
 *
 * @param job        the job's id
 * @param checkout   the leased checkout's resolved root
 * @param writePaths the job's write_paths
 */
public record CarriedLease(String job, Path checkout, List<WriteGlob> writePaths) {

    public CarriedLease {
        Objects.requireNonNull(job, "job");
        Objects.requireNonNull(checkout, "checkout");
        if (!checkout.isAbsolute()) {
            throw new IllegalArgumentException("checkout must be absolute: " + checkout);
        }
        checkout = checkout.normalize();
        writePaths = List.copyOf(writePaths);
        if (writePaths.isEmpty()) {
            throw new IllegalArgumentException("a carried lease narrows by at least one glob");
        }
    }

    /** What a narrowed run carries on. */
    public static CarriedLease of(Narrowing.Narrowed n) {
        return new CarriedLease(n.job().id(), n.scope().checkout(), n.job().writePaths());
    }

    /** The job as the narrowing takes it: live and delegated (it narrowed the parent run), no store to write. */
    public LeaseJob leaseJob() {
        return new LeaseJob(job, true, true, writePaths);
    }

    /** The variable's value. */
    public String encode() {
        StringBuilder b = new StringBuilder("job=").append(enc(job)).append("&checkout=").append(enc(checkout.toString()));
        writePaths.forEach(g -> b.append("&write=").append(enc(g.text())));
        return b.toString();
    }

    /**
     * The leases carried in {@code env}: none, or one per narrowing of the parent run, separated
     * by a space (which the encoding never writes).
     *
     * @throws SandboxException MGS2004 naming {@code MAGUS_LEASE} when its value cannot be read
     */
    public static List<CarriedLease> from(Map<String, String> env) {
        String value = env.get(MagusEnv.LEASE);
        if (value == null) {
            return List.of();
        }
        List<CarriedLease> out = new ArrayList<>();
        for (String one : value.split(" ", -1)) {
            out.add(decode(one));
        }
        return List.copyOf(out);
    }

    /** The value for {@code leases}, read back by {@link #from}. */
    public static String encodeAll(List<CarriedLease> leases) {
        return String.join(" ", leases.stream().map(CarriedLease::encode).toList());
    }

    /** @throws SandboxException MGS2004 naming {@code MAGUS_LEASE} */
    public static CarriedLease decode(String value) {
        String job = null;
        String checkout = null;
        List<WriteGlob> globs = new ArrayList<>();
        for (String pair : value.split("&", -1)) {
            int eq = pair.indexOf('=');
            if (eq < 0) {
                throw refuse(value, "'" + pair + "' is not key=value");
            }
            String key = pair.substring(0, eq);
            String v;
            try {
                v = URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8);
            } catch (IllegalArgumentException e) {
                throw refuse(value, "the value of " + key + " is not url-encoded: " + e.getMessage());
            }
            switch (key) {
                case "job" -> job = once(job, v, key, value);
                case "checkout" -> checkout = once(checkout, v, key, value);
                case "write" -> globs.add(WriteGlob.parse(v, MagusEnv.LEASE));
                default -> throw refuse(value, "unknown key '" + key + "'");
            }
        }
        if (job == null || job.isEmpty() || checkout == null || globs.isEmpty()) {
            throw refuse(value, "it needs job=, checkout= and at least one write=");
        }
        Path root;
        try {
            root = Path.of(checkout);
        } catch (InvalidPathException e) {
            throw refuse(value, "checkout is not a path");
        }
        if (!root.isAbsolute() || !root.normalize().equals(root)) {
            throw refuse(value, "checkout must be an absolute, normalized path");
        }
        return new CarriedLease(job, root, globs);
    }

    private static String once(String seen, String v, String key, String value) {
        if (seen != null) {
            throw refuse(value, key + " is given twice");
        }
        return v;
    }

    private static String enc(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }

    private static SandboxException refuse(String value, String why) {
        String shown = value.length() > 200 ? value.substring(0, 200) + "…" : value;
        return new SandboxException(Diagnostic.of(Code.MGS2004, MagusEnv.LEASE + " cannot be read (" + why + "): a run that"
                + " carries a lease it cannot read does not start; it was '" + shown + "'", MagusEnv.LEASE, Operation.NONE,
                Layer.POLICY, MagusEnv.LEASE));
    }
}
