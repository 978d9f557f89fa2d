package dev.magus.server.client;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A plain {@code magus run}, as {@link FastClient} forwards it: only {@code --sandbox},
 * {@code --env}, {@code --unset}, {@code --stdin} and {@code -v}/{@code --verbose} before the
 * command. Anything else (another subcommand, {@code --local}, {@code --events}, {@code --ui},
 * help, a malformed option) is not a plain run, and the full command line takes it, with
 * picocli's own parsing and messages. As there, everything from the command on is the
 * command's ({@code magus run ls -la}): run stops reading options at its first positional.
 */
record FastArgs(List<String> command, Optional<String> sandbox, Map<String, String> set, List<String> unset, boolean stdin,
        boolean verbose) {

    /** The plain run {@code args} asks for, or empty when the full command line must read them. */
    static Optional<FastArgs> parse(String[] args) {
        if (args.length < 2 || !args[0].equals("run")) {
            return Optional.empty();
        }
        Optional<String> sandbox = Optional.empty();
        Map<String, String> set = new LinkedHashMap<>();
        List<String> unset = new ArrayList<>();
        boolean stdin = false;
        boolean verbose = false;
        int i = 1;
        for (; i < args.length; i++) {
            String a = args[i];
            if (a.equals("--")) {
                i++;
                break;
            }
            if (!a.startsWith("-")) {
                break;
            }
            String name = a;
            Optional<String> inline = Optional.empty();
            int eq = a.indexOf('=');
            if (a.startsWith("--") && eq > 0) {
                name = a.substring(0, eq);
                inline = Optional.of(a.substring(eq + 1));
            }
            switch (name) {
                case "--stdin", "-v", "--verbose" -> {
                    if (inline.isPresent()) {
                        return Optional.empty();
                    }
                    if (name.equals("--stdin")) {
                        stdin = true;
                    } else {
                        verbose = true;
                    }
                }
                case "--sandbox", "--env", "--unset" -> {
                    String v;
                    if (inline.isPresent()) {
                        v = inline.get();
                    } else if (i + 1 < args.length) {
                        v = args[++i];
                    } else {
                        return Optional.empty();
                    }
                    if (name.equals("--sandbox")) {
                        if (sandbox.isPresent()) {
                            return Optional.empty();
                        }
                        sandbox = Optional.of(v);
                    } else if (name.equals("--unset")) {
                        unset.add(v);
                    } else {
                        int kv = v.indexOf('=');
                        if (kv <= 0) {
                            return Optional.empty(); // the full command line says why (MGS2004)
                        }
                        set.put(v.substring(0, kv), v.substring(kv + 1));
                    }
                }
                default -> {
                    return Optional.empty();
                }
            }
        }
        List<String> command = List.of(args).subList(i, args.length);
        if (command.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(new FastArgs(command, sandbox, set, unset, stdin, verbose));
    }
}
