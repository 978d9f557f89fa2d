package dev.magus.events;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Optional;

/**
 * Every stable magus diagnostic code. The number never changes meaning; the page
 * ({@code magus explain CODE}) says what boundary it is, why it exists and how to declare
 * the access when it is legitimate.
 */
public enum Code {
    MGS2001(Severity.ERROR, "read denied: outside every read rule"),
    MGS2002(Severity.ERROR, "write denied: outside every write rule, or a control file"),
    MGS2003(Severity.INFO, "child environment rebuilt: variables dropped"),
    MGS2004(Severity.ERROR, "sandbox declaration or setting cannot be honored"),
    MGS2005(Severity.WARNING, "best-effort without the kernel layer: binding checks only"),
    MGS2006(Severity.HINT, "version manager shim on PATH but its variable was scrubbed"),
    MGS2007(Severity.ERROR, "exec denied: binary outside every exec rule"),
    MGS2008(Severity.DEBUG, "proc-socket variable withheld from a child, or re-injected"),
    MGS2009(Severity.ERROR, "too many symbolic links while resolving a path"),
    MGS2010(Severity.ERROR, "a nested or forwarded run asked for a weaker sandbox mode"),
    MGS2011(Severity.ERROR, "request on the proc socket or server without the right token"),
    MGS2012(Severity.ERROR, "required mode on a host without Landlock ABI 3"),
    MGS2013(Severity.ERROR, "network connection outside the run's network policy"),
    MGS2014(Severity.WARNING, "kernel audit records lost: some denials may be missing"),
    MGS2015(Severity.ERROR, "socket refused: an undeclared Unix socket, or UDP/raw/packet/MPTCP under network none or proxy"),
    MGS2016(Severity.ERROR, "an untrusted magus.yaml declared what needs 'magus trust'"),
    MGS3001(Severity.ERROR, "write-mode dispatch wrote inside a registered descendant project");

    private final Severity severity;
    private final String summary;

    Code(Severity severity, String summary) {
        this.severity = severity;
        this.summary = summary;
    }

    public Severity severity() {
        return severity;
    }

    /** One line, lower case, no trailing period. */
    public String summary() {
        return summary;
    }

    /** The explanation page, Markdown, from {@code pages/CODE.md} on the class path. */
    public String page() {
        String resource = "pages/" + name() + ".md";
        try (InputStream in = Code.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("no explanation page for " + name() + " (" + resource + ")");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Parses {@code MGS2001} or {@code mgs2001}; empty for anything else. */
    public static Optional<Code> parse(String text) {
        String upper = text.strip().toUpperCase(Locale.ROOT);
        for (Code code : values()) {
            if (code.name().equals(upper)) {
                return Optional.of(code);
            }
        }
        return Optional.empty();
    }
}
