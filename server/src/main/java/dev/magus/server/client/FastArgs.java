package dev.magus.server.client;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A plain {@code magus run}, as {@link FastClient} forwards it: only {@code --sandbox},
 * {@code --env}, {@code --unset}, {@code --stdin}/{@code --no-stdin}, {@code -v}/{@code --verbose},
 * {@code -q}/{@code --quiet}, {@code --allow},
 * {@code --pass}, {@code --allow-host}, {@code --op} and {@code --target} before the command
 * (with {@code --target} the command, what is appended to the target's, may be empty). Their
 * values are checked by the server's run, as a local run checks them (a bad one is its MGS2004). Anything else (another subcommand, {@code --local}, {@code --events}, {@code --ui},
 * help, a malformed option) is not a plain run, and the full command line takes it, with
 * picocli's own parsing and messages. As there, everything from the command on is the
 * command's ({@code magus run ls -la}): run stops reading options at its first positional.
 */
record FastArgs(List<String> command, Optional<String> sandbox, Map<String, String> set, List<String> unset, boolean stdin,
        boolean verbose, boolean quiet, List<String> allow, List<String> pass, List<String> allowHosts, Optional<String> op,
        Optional<String> target) {

    /** This run with the child reading {@code /dev/null}. */
    FastArgs withoutStdin() {
        return new FastArgs(command, sandbox, set, unset, false, verbose, quiet, allow, pass, allowHosts, op, target);
    }

    /** The plain run {@code args} asks for, or empty when the full command line must read them. */
    static Optional<FastArgs> parse(String[] args) {
        if (args.length < 2 || !args[0].equals("run")) {
            return Optional.empty();
        }
        Optional<String> sandbox = Optional.empty();
        Map<String, String> set = new LinkedHashMap<>();
        List<String> unset = new ArrayList<>();
        // The child reads magus's standard input unless --no-stdin, as with the full command line.
        boolean stdin = true;
        boolean verbose = false;
        boolean quiet = false;
        List<String> allow = new ArrayList<>();
        List<String> pass = new ArrayList<>();
        List<String> hosts = new ArrayList<>();
        Optional<String> op = Optional.empty();
        Optional<String> target = Optional.empty();
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
            if (FastGrammar.FLAGS.contains(name)) {
                if (inline.isPresent()) {
                    return Optional.empty();
                }
                switch (name) {
                    case "--stdin" -> stdin = true;
                    case "--no-stdin" -> stdin = false;
                    case "-q", "--quiet" -> quiet = true;
                    case "-v", "--verbose" -> verbose = true;
                    default -> throw new IllegalStateException("FastGrammar has " + name + ", which FastArgs does not read");
                }
            } else if (FastGrammar.VALUED.contains(name)) {
                String v;
                if (inline.isPresent()) {
                    v = inline.get();
                } else if (i + 1 < args.length) {
                    v = args[++i];
                } else {
                    return Optional.empty();
                }
                switch (name) {
                    case "--allow" -> allow.add(v);
                    case "--pass" -> pass.add(v);
                    case "--allow-host" -> hosts.add(v);
                    case "--unset" -> unset.add(v);
                    case "--op", "--target", "--sandbox" -> {
                        Optional<String> had = name.equals("--op") ? op : name.equals("--target") ? target : sandbox;
                        if (had.isPresent()) {
                            return Optional.empty(); // picocli says what it makes of a repeated one
                        }
                        if (name.equals("--op")) {
                            op = Optional.of(v);
                        } else if (name.equals("--target")) {
                            target = Optional.of(v);
                        } else {
                            sandbox = Optional.of(v);
                        }
                    }
                    case "--env" -> {
                        int kv = v.indexOf('=');
                        if (kv <= 0) {
                            return Optional.empty(); // the full command line says why (MGS2004)
                        }
                        set.put(v.substring(0, kv), v.substring(kv + 1));
                    }
                    default -> throw new IllegalStateException("FastGrammar has " + name + ", which FastArgs does not read");
                }
            } else {
                return Optional.empty();
            }
        }
        List<String> command = List.of(args).subList(i, args.length);
        if (command.isEmpty() && target.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(new FastArgs(command, sandbox, set, unset, stdin, verbose, quiet, allow, pass, hosts, op, target));
    }
}
