package dev.magus.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.magus.policy.net.NetworkMode;
import dev.magus.policy.net.NetworkPolicy;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The network part of {@code magus policy}: the mode, each host the proxy lets through and
 * the layers that granted it, and the ports. JSON:
 *
 * <pre>
 * "network": {"mode": "open" | "none" | "proxy",
 *             "allow": [ {"host": "*.example.org", "origins": ["workspace", "spell:node"]}, ... ],
 *             "ports": [ {"port": 5432, "origins": ["workspace"]} ],
 *             "bind":  [ {"port": 3000, "origins": ["target:dev"]} ]}
 * </pre>
 */
final class NetworkLines {
    private NetworkLines() {
    }

    static List<String> text(NetworkPolicy n) {
        List<String> lines = new ArrayList<>();
        String what = switch (n.mode()) {
            case OPEN -> "open: TCP is not confined (sandbox.network.mode: proxy or none confines it)";
            case NONE -> "none: no TCP connect and no listening port at all";
            case PROXY -> "proxy: TCP connects only to the run's proxy on loopback and to the ports below;"
                    + " the proxy lets through only these hosts";
        };
        lines.add("network " + what);
        if (n.unix().allowsSocketCall()) {
            lines.add("  unix sockets: " + n.unix().describe());
        }
        if (!n.declaresAnything()) {
            if (n.mode() == NetworkMode.PROXY) {
                lines.add("  (no host declared: the proxy refuses every host)");
            }
            return lines;
        }
        if (n.mode() != NetworkMode.PROXY) {
            lines.add("  (declared below, used only under mode proxy)");
        }
        List<List<String>> rows = new ArrayList<>();
        rows.add(List.of("HOST", "GRANTED BY"));
        n.allow().forEach(g -> rows.add(List.of(g.pattern().text(), String.join(", ", g.origins()))));
        ports(rows, "connect to port", n.ports());
        ports(rows, "listen on port", n.bind());
        lines.addAll(Tables.align(rows, "  "));
        return lines;
    }

    private static void ports(List<List<String>> rows, String what, Map<Integer, List<String>> ports) {
        ports.forEach((p, o) -> rows.add(List.of(what + " " + p, String.join(", ", o))));
    }

    static void json(ObjectNode root, NetworkPolicy n) {
        ObjectNode net = root.putObject("network");
        net.put("mode", n.mode().spelling());
        net.put("unix", n.unix().describe());
        ArrayNode allow = net.putArray("allow");
        n.allow().forEach(g -> {
            ObjectNode h = allow.addObject();
            h.put("host", g.pattern().text());
            g.origins().forEach(h.putArray("origins")::add);
        });
        portsJson(net.putArray("ports"), n.ports());
        portsJson(net.putArray("bind"), n.bind());
    }

    private static void portsJson(ArrayNode array, Map<Integer, List<String>> ports) {
        ports.forEach((p, o) -> {
            ObjectNode e = array.addObject();
            e.put("port", p);
            o.forEach(e.putArray("origins")::add);
        });
    }
}
