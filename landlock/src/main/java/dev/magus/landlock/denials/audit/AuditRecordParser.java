package dev.magus.landlock.denials.audit;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Parses the text of an audit netlink message, {@code audit(T:N): key=value ...}. */
public final class AuditRecordParser {

    private static final Pattern HEADER = Pattern.compile("^audit\\((\\d+)\\.(\\d+):(\\d+)\\):\\s*");
    private static final Pattern FIELD = Pattern.compile("([\\w-]+)=(\"[^\"]*\"|\\S*)");
    private static final Pattern HEX = Pattern.compile("(?:[0-9A-F]{2})+");

    private AuditRecordParser() {
    }

    /** The record, or empty for types this source does not use or text it cannot read. */
    public static Optional<AuditRecord> parse(int type, String text) {
        if (type != AuditRecord.TYPE_LANDLOCK_ACCESS && type != AuditRecord.TYPE_LANDLOCK_DOMAIN
                && type != AuditRecord.TYPE_SYSCALL) {
            return Optional.empty();
        }
        Matcher h = HEADER.matcher(text);
        if (!h.find()) {
            return Optional.empty();
        }
        long serial = Long.parseLong(h.group(3));
        Map<String, String> f = fields(text.substring(h.end()));
        switch (type) {
            case AuditRecord.TYPE_LANDLOCK_ACCESS -> {
                String domain = f.get("domain");
                String blockers = f.get("blockers");
                if (domain == null || blockers == null) {
                    return Optional.empty();
                }
                Optional<String> path = Optional.ofNullable(f.get("path")).or(() -> Optional.ofNullable(f.get("name")))
                        .map(AuditRecordParser::untrusted);
                return Optional.of(new AuditRecord.Access(serial, domain, List.of(blockers.split(",")), path, socket(f)));
            }
            case AuditRecord.TYPE_LANDLOCK_DOMAIN -> {
                String domain = f.get("domain");
                if (domain == null) {
                    return Optional.empty();
                }
                return Optional.of(new AuditRecord.Domain(serial, domain, f.getOrDefault("status", ""), number(f.get("pid")),
                        Optional.ofNullable(f.get("comm")).map(AuditRecordParser::untrusted).orElse("")));
            }
            default -> {
                OptionalLong pid = number(f.get("pid"));
                if (pid.isEmpty()) {
                    return Optional.empty();
                }
                return Optional.of(new AuditRecord.Syscall(serial, pid.getAsLong(), number(f.get("ppid")).orElse(0)));
            }
        }
    }

    /** A refused connect names its destination, a refused bind its source; the kernel omits zeros. */
    private static Optional<AuditRecord.Socket> socket(Map<String, String> f) {
        String address = f.containsKey("daddr") || f.containsKey("dest") ? f.getOrDefault("daddr", "")
                : f.getOrDefault("saddr", "");
        OptionalInt port = number(f.containsKey("daddr") || f.containsKey("dest") ? f.get("dest") : f.get("src"))
                .stream().filter(p -> p >= 1 && p <= 65535).mapToInt(p -> (int) p).findFirst();
        if (address.isEmpty() && port.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(new AuditRecord.Socket(address, port));
    }

    static Map<String, String> fields(String body) {
        Map<String, String> out = new HashMap<>();
        Matcher m = FIELD.matcher(body);
        while (m.find()) {
            out.putIfAbsent(m.group(1), m.group(2));
        }
        return out;
    }

    /**
     * A string the kernel logs with {@code audit_log_untrustedstring}: quoted when it is
     * plain, hex-encoded when it holds a space, a quote or a control or non-ASCII byte.
     */
    static String untrusted(String value) {
        if (value.length() >= 2 && value.startsWith("\"") && value.endsWith("\"")) {
            return value.substring(1, value.length() - 1);
        }
        if (HEX.matcher(value).matches()) {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream(value.length() / 2);
            for (int i = 0; i < value.length(); i += 2) {
                bytes.write(Integer.parseInt(value.substring(i, i + 2), 16));
            }
            return bytes.toString(StandardCharsets.UTF_8);
        }
        return value;
    }

    private static OptionalLong number(String s) {
        if (s == null || !s.matches("\\d+")) {
            return OptionalLong.empty();
        }
        return OptionalLong.of(Long.parseLong(s));
    }
}
