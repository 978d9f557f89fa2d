package dev.magus.server.protocol;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Encodes and decodes {@link Frame}s. A frame on the wire is {@code length (u32, big-endian)},
 * then {@code kind (u8)}, then {@code length - 1} bytes of body; {@link #encode} returns all of
 * it, {@link #decode} takes what follows the length. A body that does not parse is a
 * {@link ProtocolException}, never a half-read frame.
 */
public final class FrameCodec {
    /** Bigger frames are refused: a broken or hostile peer cannot make either end buffer without bound. */
    public static final int MAX_FRAME = 16 * 1024 * 1024;
    /**
     * A frame a client sends after its request (a chunk of stdin, a signal): clients send stdin in
     * chunks of 16 KiB, so a larger one is not a client's.
     */
    public static final int MAX_STREAM_FRAME = 64 * 1024;

    /** The kinds of frame: the byte after the length prefix. */
    public static final byte JSON = 0;
    public static final byte STDOUT = 1;
    public static final byte STDERR = 2;
    public static final byte STDIN = 3;

    private static final ObjectMapper MAPPER = new ObjectMapper();

    private FrameCodec() {
    }

    /** A frame the peer sent that is not one: the connection is closed. */
    public static final class ProtocolException extends IOException {
        private static final long serialVersionUID = 1L;

        public ProtocolException(String message) {
            super(message);
        }
    }

    /** The whole frame, length prefix included. */
    public static byte[] encode(Frame frame) {
        if (frame instanceof Frame.Stdout o) {
            return bytes(STDOUT, o.bytes(), 0, o.bytes().length);
        } else if (frame instanceof Frame.Stderr e) {
            return bytes(STDERR, e.bytes(), 0, e.bytes().length);
        } else if (frame instanceof Frame.StdinData i) {
            return bytes(STDIN, i.bytes(), 0, i.bytes().length);
        }
        byte[] json;
        try {
            json = MAPPER.writeValueAsBytes(toJson(frame));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e); // a tree of strings and numbers always serialises
        }
        return bytes(JSON, json, 0, json.length);
    }

    /** An output or input frame of {@code kind} straight from a buffer, without a copy into a record first. */
    public static byte[] bytes(byte kind, byte[] b, int off, int len) {
        ByteBuffer buf = ByteBuffer.allocate(5 + len);
        buf.putInt(len + 1).put(kind).put(b, off, len);
        return buf.array();
    }

    /** A stdout frame of {@code b[off, off+len)}. */
    public static byte[] stdout(byte[] b, int off, int len) {
        return bytes(STDOUT, b, off, len);
    }

    /** A stderr frame of {@code b[off, off+len)}. */
    public static byte[] stderr(byte[] b, int off, int len) {
        return bytes(STDERR, b, off, len);
    }

    /** A stdin frame of {@code b[off, off+len)}. */
    public static byte[] stdin(byte[] b, int off, int len) {
        return bytes(STDIN, b, off, len);
    }

    /** The frame whose kind and body are {@code frame} (what follows the length prefix). */
    public static Frame decode(byte[] frame) throws ProtocolException {
        if (frame.length == 0) {
            throw new ProtocolException("an empty frame");
        }
        switch (frame[0]) {
            case STDOUT:
                return new Frame.Stdout(Arrays.copyOfRange(frame, 1, frame.length));
            case STDERR:
                return new Frame.Stderr(Arrays.copyOfRange(frame, 1, frame.length));
            case STDIN:
                return new Frame.StdinData(Arrays.copyOfRange(frame, 1, frame.length));
            case JSON:
                // Decoded from the frame in place: the same text as from a copy of its body.
                return fromJson(new String(frame, 1, frame.length - 1, StandardCharsets.UTF_8));
            default:
                throw new ProtocolException("a frame of unknown kind " + frame[0]);
        }
    }

    private static ObjectNode toJson(Frame frame) {
        ObjectNode n = MAPPER.createObjectNode();
        if (frame instanceof Frame.Hello h) {
            n.put("type", "hello").put("version", h.version()).put("token", h.token());
        } else if (frame instanceof Frame.Command c) {
            n.put("type", "command");
            c.args().forEach(n.putArray("args")::add);
            n.put("cwd", c.cwd());
            c.env().forEach(n.putObject("env")::put);
            if (c.stdinFd()) {
                n.put("stdinFd", true);
            }
            if (c.stdinTerminal()) {
                n.put("stdinTerminal", true);
            }
            if (c.tty()) {
                n.put("tty", true);
            }
        } else if (frame instanceof Frame.Accepted a) {
            n.put("type", "accepted").put("stdin", a.stdin());
            if (a.stdinFd()) {
                n.put("stdinFd", true);
            }
        } else if (frame instanceof Frame.Local l) {
            n.put("type", "local").put("message", l.message());
        } else if (frame instanceof Frame.Decision d) {
            n.put("type", "decision").put("id", d.id()).put("decision", d.decision());
        } else if (frame instanceof Frame.Ask a) {
            n.put("type", "ask").put("id", a.id()).put("pid", a.pid()).put("process", a.process()).put("path", a.path())
                    .put("resolved", a.resolved()).put("access", a.access()).put("timeoutMillis", a.timeoutMillis());
        } else if (frame instanceof Frame.StdinEnd) {
            n.put("type", "stdin-end");
        } else if (frame instanceof Frame.Signal s) {
            n.put("type", "signal").put("signal", s.signal());
        } else if (frame instanceof Frame.StatusQuery) {
            n.put("type", "status");
        } else if (frame instanceof Frame.Stop) {
            n.put("type", "stop");
        } else if (frame instanceof Frame.Welcome w) {
            n.put("type", "welcome").put("version", w.version());
        } else if (frame instanceof Frame.Refused r) {
            n.put("type", "refused").put("code", r.code()).put("message", r.message());
        } else if (frame instanceof Frame.Exit x) {
            n.put("type", "exit").put("status", x.status()).put("signal", x.signal());
        } else if (frame instanceof Frame.Declined d) {
            n.put("type", "declined").put("clientMode", d.clientMode()).put("workspaceMode", d.workspaceMode())
                    .put("message", d.message());
        } else if (frame instanceof Frame.Status s) {
            n.put("type", "status-reply").put("pid", s.pid());
            ObjectNode c = n.putObject("counters");
            s.counters().forEach(c::put);
            s.metrics().ifPresent(m -> n.put("metrics", m));
            s.idle().ifPresent(i -> n.putObject("idle").put("timeoutMillis", i.timeoutMillis())
                    .put("stopsAtMillis", i.stopsAtMillis()).put("connections", i.connections()));
        } else if (frame instanceof Frame.Stopping) {
            n.put("type", "stopping");
        } else {
            throw new IllegalArgumentException("not a JSON frame: " + frame.getClass().getSimpleName());
        }
        return n;
    }

    private static Frame fromJson(String body) throws ProtocolException {
        JsonNode n;
        try {
            n = MAPPER.readTree(body);
        } catch (JsonProcessingException e) {
            throw new ProtocolException("a control frame that is not JSON: " + e.getOriginalMessage());
        }
        if (n == null || !n.isObject()) {
            throw new ProtocolException("a control frame that is not a JSON object");
        }
        String type = text(n, "type");
        switch (type) {
            case "hello":
                return new Frame.Hello(integer(n, "version"), n.path("token").asText(""));
            case "command":
                return new Frame.Command(strings(n, "args"), text(n, "cwd"), map(n, "env"),
                        n.path("stdinFd").asBoolean(false), n.path("stdinTerminal").asBoolean(false),
                        n.path("tty").asBoolean(false));
            case "accepted":
                return new Frame.Accepted(n.path("stdin").asBoolean(false), n.path("stdinFd").asBoolean(false));
            case "local":
                return new Frame.Local(text(n, "message"));
            case "decision": {
                String d = text(n, "decision");
                if (!Frame.Decision.WORDS.contains(d)) {
                    throw new ProtocolException("a decision that is not once, run or deny: " + d);
                }
                return new Frame.Decision(longInteger(n, "id"), d);
            }
            case "ask":
                return new Frame.Ask(longInteger(n, "id"), integer(n, "pid"), text(n, "process"), text(n, "path"),
                        text(n, "resolved"), text(n, "access"), longInteger(n, "timeoutMillis"));
            case "stdin-end":
                return new Frame.StdinEnd();
            case "signal":
                return new Frame.Signal(integer(n, "signal"));
            case "status":
                return new Frame.StatusQuery();
            case "stop":
                return new Frame.Stop();
            case "welcome":
                return new Frame.Welcome(integer(n, "version"));
            case "refused":
                return new Frame.Refused(text(n, "code"), text(n, "message"));
            case "exit":
                return new Frame.Exit(integer(n, "status"), integer(n, "signal"));
            case "declined":
                return new Frame.Declined(text(n, "clientMode"), text(n, "workspaceMode"), text(n, "message"));
            case "status-reply": {
                Map<String, Double> counters = new LinkedHashMap<>();
                n.path("counters").fields().forEachRemaining(e -> counters.put(e.getKey(), e.getValue().asDouble()));
                JsonNode idle = n.path("idle");
                return new Frame.Status(n.path("pid").asLong(), counters,
                        n.path("metrics").isTextual() ? Optional.of(n.path("metrics").asText()) : Optional.empty(),
                        idle.isObject() ? Optional.of(new Frame.Idle(idle.path("timeoutMillis").asLong(),
                                idle.path("stopsAtMillis").asLong(), idle.path("connections").asInt())) : Optional.empty());
            }
            case "stopping":
                return new Frame.Stopping();
            default:
                throw new ProtocolException("a control frame of unknown type " + type);
        }
    }

    private static String text(JsonNode n, String field) throws ProtocolException {
        JsonNode v = n.get(field);
        if (v == null || !v.isTextual()) {
            throw new ProtocolException("a frame without its " + field);
        }
        return v.asText();
    }

    private static long longInteger(JsonNode n, String field) throws ProtocolException {
        JsonNode v = n.get(field);
        if (v == null || !v.isIntegralNumber() || !v.canConvertToLong()) {
            throw new ProtocolException("a frame without its " + field);
        }
        return v.asLong();
    }

    private static int integer(JsonNode n, String field) throws ProtocolException {
        JsonNode v = n.get(field);
        if (v == null || !v.canConvertToInt()) {
            throw new ProtocolException("a frame without its " + field);
        }
        return v.asInt();
    }

    private static List<String> strings(JsonNode n, String field) throws ProtocolException {
        List<String> out = new ArrayList<>();
        JsonNode a = n.path(field);
        if (!a.isMissingNode() && !a.isArray()) {
            throw new ProtocolException("a frame whose " + field + " is not a list");
        }
        for (JsonNode v : a) {
            out.add(v.asText());
        }
        return out;
    }

    private static Map<String, String> map(JsonNode n, String field) throws ProtocolException {
        Map<String, String> out = new LinkedHashMap<>();
        JsonNode o = n.path(field);
        if (!o.isMissingNode() && !o.isObject()) {
            throw new ProtocolException("a frame whose " + field + " is not an object");
        }
        for (Iterator<Map.Entry<String, JsonNode>> it = o.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            out.put(e.getKey(), e.getValue().asText());
        }
        return out;
    }
}
