package dev.magus.server.client;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * The two frames {@link FastClient} opens a connection with, the hello and the run, written as
 * {@code FrameCodec} writes them (the JSON by {@link MiniJson}; FastArgsTest decodes them with
 * {@code FrameCodec}).
 */
final class RunFrames {
    private RunFrames() {
    }

    /** The hello frame's JSON, as {@code FrameCodec} reads it. */
    static StringBuilder hello(String token) {
        StringBuilder hello = new StringBuilder("{\"type\":\"hello\",\"version\":").append(FastClient.VERSION).append(",\"token\":");
        return MiniJson.quote(hello, token).append('}');
    }

    /** Control frames, one after the other, ready to write. */
    static ByteBuffer frames(CharSequence... jsons) {
        byte[][] bodies = new byte[jsons.length][];
        int size = 0;
        for (int k = 0; k < jsons.length; k++) {
            bodies[k] = jsons[k].toString().getBytes(StandardCharsets.UTF_8);
            size += 5 + bodies[k].length;
        }
        ByteBuffer b = ByteBuffer.allocate(size);
        for (byte[] body : bodies) {
            b.putInt(body.length + 1).put(FastClient.JSON).put(body);
        }
        return b.flip();
    }

    /** The run frame's JSON, as {@code FrameCodec} reads it. */
    static StringBuilder submit(FastArgs run, Map<String, String> env) {
        StringBuilder b = new StringBuilder("{\"type\":\"run\",\"argv\":[");
        for (int k = 0; k < run.command().size(); k++) {
            MiniJson.quote(b.append(k == 0 ? "" : ","), run.command().get(k));
        }
        MiniJson.quote(b.append("],\"cwd\":"), Path.of("").toAbsolutePath().toString());
        object(b.append(",\"env\":"), env);
        object(b.append(",\"set\":"), run.set());
        b.append(",\"unset\":[");
        for (int k = 0; k < run.unset().size(); k++) {
            MiniJson.quote(b.append(k == 0 ? "" : ","), run.unset().get(k));
        }
        b.append(']');
        if (run.sandbox().isPresent()) {
            MiniJson.quote(b.append(",\"sandbox\":"), run.sandbox().get());
        }
        array(b, "allow", run.allow());
        array(b, "pass", run.pass());
        array(b, "allowHost", run.allowHosts());
        if (run.op().isPresent()) {
            MiniJson.quote(b.append(",\"op\":"), run.op().get());
        }
        if (run.target().isPresent()) {
            MiniJson.quote(b.append(",\"target\":"), run.target().get());
        }
        return b.append(",\"stdin\":").append(run.stdin()).append(",\"outputEvents\":false}");
    }

    /** {@code ,"name":[...]}, or nothing when empty (as the full client's codec writes it). */
    private static void array(StringBuilder b, String name, List<String> values) {
        if (values.isEmpty()) {
            return;
        }
        b.append(",\"").append(name).append("\":[");
        for (int k = 0; k < values.size(); k++) {
            MiniJson.quote(b.append(k == 0 ? "" : ","), values.get(k));
        }
        b.append(']');
    }

    private static void object(StringBuilder b, Map<String, String> map) {
        b.append('{');
        boolean first = true;
        for (Map.Entry<String, String> e : map.entrySet()) {
            MiniJson.quote(b.append(first ? "" : ","), e.getKey()).append(':');
            MiniJson.quote(b, e.getValue());
            first = false;
        }
        b.append('}');
    }
}
