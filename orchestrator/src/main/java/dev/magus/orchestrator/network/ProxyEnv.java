package dev.magus.orchestrator.network;

import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The variables that point a child at its run's proxy. Applied after the scrub and after the
 * run's own overrides, so neither a passthrough nor {@code --env} can point the child
 * elsewhere (and going elsewhere directly is refused by the kernel anyway). JVM tools read
 * none of the {@code *_PROXY} variables, so they get the proxy as system properties in
 * {@code JAVA_TOOL_OPTIONS}, after whatever the variable already held: the JVM applies the
 * options in order, so these win over an earlier {@code -Dhttp.proxyHost}.
 */
public final class ProxyEnv {
    public static final String JAVA_TOOL_OPTIONS = "JAVA_TOOL_OPTIONS";
    /** Loopback goes direct: a declared {@code ports} entry (a database, a dev server) is reached without the proxy. */
    static final String NO_PROXY = "localhost,127.0.0.1,::1";

    private ProxyEnv() {
    }

    /** {@code variables} with the proxy's added (and any earlier value of these names replaced). */
    public static SortedMap<String, String> apply(Map<String, String> variables, int port) {
        SortedMap<String, String> out = new TreeMap<>(variables);
        String url = "http://127.0.0.1:" + port;
        for (String name : new String[] {"HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy"}) {
            out.put(name, url);
        }
        out.put("NO_PROXY", NO_PROXY);
        out.put("no_proxy", NO_PROXY);
        String jvm = "-Dhttp.proxyHost=127.0.0.1 -Dhttp.proxyPort=" + port
                + " -Dhttps.proxyHost=127.0.0.1 -Dhttps.proxyPort=" + port;
        String before = out.getOrDefault(JAVA_TOOL_OPTIONS, "").strip();
        out.put(JAVA_TOOL_OPTIONS, before.isEmpty() ? jvm : before + " " + jvm);
        return out;
    }
}
