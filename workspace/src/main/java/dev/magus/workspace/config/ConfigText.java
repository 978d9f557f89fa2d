package dev.magus.workspace.config;

import dev.magus.events.DetailKey;
import dev.magus.events.Code;
import dev.magus.events.Diagnostic;
import dev.magus.events.Echo;
import dev.magus.events.Layer;
import dev.magus.events.Operation;
import dev.magus.events.SandboxException;
import dev.magus.events.IoFailures;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The text of a workspace's magus.yaml, read so that no file a confined child can leave there
 * stops or widens the next run: whatever cannot be read as a regular UTF-8 file of at most
 * {@link #MAX_BYTES} bytes is MGS2004 naming the file, never "no configuration".
 *
 * <p>Why each check: a child may write anything in the workspace, {@code magus.yaml} included
 * (the control-file audit restores it, but a run may also start on what was left before). A
 * directory, a dangling link or a link loop read as "absent" would silently turn the sandbox
 * off; a fifo would block magus for ever on open; a link to {@code /dev/zero} or a huge file
 * would exhaust its memory. The kind and size are decided on the file the link leads to
 * before it is opened; the open and the bounded read run on a helper thread with a deadline, so
 * a file swapped for a fifo between the check and the open costs {@link #OPEN_DEADLINE}, not a
 * hung magus.
 */
public final class ConfigText {
    /** Larger than any honest magus.yaml by two orders of magnitude. */
    public static final int MAX_BYTES = 1 << 20;
    static final Duration OPEN_DEADLINE = Duration.ofSeconds(5);
    private static final String WHY = "; a magus.yaml that cannot be read is refused, never taken as no configuration"
            + " (which would turn the sandbox off)";

    private ConfigText() {
    }

    /**
     * The file's text, decoded strictly as UTF-8 (a byte-order mark at the start is dropped).
     *
     * @throws SandboxException MGS2004 whose source is the file's name (with line and column
     *                          for bytes that are not UTF-8) and whose {@code file} detail is its path
     */
    public static String read(Path file) {
        String name = Optional.ofNullable(file.getFileName()).map(Path::toString).orElse(file.toString());
        byte[] bytes = bytes(file, name);
        return decode(bytes, file, name);
    }

    private static byte[] bytes(Path file, String name) {
        BasicFileAttributes attrs;
        try {
            attrs = Files.readAttributes(file, BasicFileAttributes.class);
        } catch (NoSuchFileException e) {
            throw refused(file, name, linkTarget(file).map(t -> "is a symbolic link to " + Echo.quoted(t)
                    + ", which does not exist").orElse("does not exist (it was removed while magus read it)") + WHY);
        } catch (IOException e) {
            if (Files.isSymbolicLink(file) && String.valueOf(e.getMessage()).contains("Too many levels of symbolic links")) {
                throw refused(file, name, "is a symbolic link that leads round in a loop (ELOOP)" + via(file) + WHY);
            }
            throw refused(file, name, "cannot be read: " + IoFailures.reason(e) + via(file) + WHY);
        }
        if (!attrs.isRegularFile()) {
            throw refused(file, name, "is " + kind(file, attrs) + via(file) + ", not a regular file" + WHY);
        }
        if (attrs.size() > MAX_BYTES) {
            throw refused(file, name, "is " + attrs.size() + " bytes" + via(file) + "; magus reads a magus.yaml of at most "
                    + MAX_BYTES + " bytes" + WHY);
        }
        CompletableFuture<byte[]> read = new CompletableFuture<>();
        Thread reader = new Thread(() -> {
            try (InputStream in = Files.newInputStream(file)) {
                read.complete(in.readNBytes(MAX_BYTES + 1));
            } catch (IOException | RuntimeException e) {
                read.completeExceptionally(e);
            }
        }, "magus-config-read");
        // A reader stuck in open(2) on a fifo cannot be interrupted; it must not keep magus alive.
        reader.setDaemon(true);
        reader.start();
        byte[] bytes;
        try {
            bytes = read.get(OPEN_DEADLINE.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            throw refused(file, name, "could not be read within " + OPEN_DEADLINE.toSeconds() + " s (was it replaced by a fifo"
                    + " or a device while magus read it?)" + WHY);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            String reason = cause instanceof IOException io ? IoFailures.reason(io) : String.valueOf(cause.getMessage());
            throw refused(file, name, "cannot be read: " + reason + via(file) + WHY);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw refused(file, name, "was not read: magus was interrupted" + WHY);
        }
        if (bytes.length > MAX_BYTES) {
            throw refused(file, name, "holds more than " + MAX_BYTES + " bytes" + via(file) + "; magus reads a magus.yaml of"
                    + " at most " + MAX_BYTES + " bytes" + WHY);
        }
        return bytes;
    }

    /** Strict UTF-8; the first byte that is not is named with its line and column (1-based, in characters). */
    static String decode(byte[] bytes, Path file, String name) {
        int start = bytes.length >= 3 && (bytes[0] & 0xff) == 0xef && (bytes[1] & 0xff) == 0xbb && (bytes[2] & 0xff) == 0xbf ? 3 : 0;
        CharsetDecoder decoder = StandardCharsets.UTF_8.newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT);
        ByteBuffer in = ByteBuffer.wrap(bytes, start, bytes.length - start);
        CharBuffer out = CharBuffer.allocate(bytes.length);
        CoderResult result = decoder.decode(in, out, true);
        if (!result.isError()) {
            result = decoder.flush(out);
        }
        if (result.isError()) {
            int at = in.position();
            int lineStart = start;
            int line = 1;
            for (int i = start; i < at; i++) {
                if (bytes[i] == '\n') {
                    line++;
                    lineStart = i + 1;
                }
            }
            String before = new String(bytes, lineStart, at - lineStart, StandardCharsets.UTF_8);
            int column = before.codePointCount(0, before.length()) + 1;
            String position = name + ":" + line + ":" + column;
            throw new SandboxException(Diagnostic.of(Code.MGS2004,
                    "not UTF-8: byte " + String.format("0x%02x", bytes[at] & 0xff) + " cannot be decoded; save "
                            + name + " as UTF-8" + WHY,
                    "", Operation.NONE, Layer.POLICY, position).withDetail(DetailKey.FILE, file.toString()));
        }
        out.flip();
        return out.toString();
    }

    private static String kind(Path file, BasicFileAttributes attrs) {
        if (attrs.isDirectory()) {
            return "a directory";
        }
        try {
            int type = ((Number) Files.getAttribute(file, "unix:mode")).intValue() & 0170000;
            return switch (type) {
                case 0010000 -> "a fifo";
                case 0020000 -> "a character device";
                case 0060000 -> "a block device";
                case 0140000 -> "a socket";
                default -> "a special file";
            };
        } catch (IOException | RuntimeException e) {
            return "a special file";
        }
    }

    /** {@code " (a symbolic link to '/dev/zero')"} when the name is a link, else nothing. */
    private static String via(Path file) {
        return linkTarget(file).map(t -> " (a symbolic link to " + Echo.quoted(t) + ")").orElse("");
    }

    private static Optional<String> linkTarget(Path file) {
        if (!Files.isSymbolicLink(file)) {
            return Optional.empty();
        }
        try {
            return Optional.of(Files.readSymbolicLink(file).toString());
        } catch (IOException | RuntimeException e) {
            return Optional.of("(unreadable)");
        }
    }

    private static SandboxException refused(Path file, String name, String message) {
        return new SandboxException(Diagnostic.of(Code.MGS2004, message, "", Operation.NONE, Layer.POLICY, name)
                .withDetail(DetailKey.FILE, file.toString()));
    }
}
