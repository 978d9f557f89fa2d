package dev.magus.server;

import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * A run a client's words make, as {@link RunGrammar} parses them: never a frame, since a client
 * sends only its words. The environment is the client's whole environment: the run uses the
 * client's {@code HOME}, {@code PATH} and {@code MAGUS_SANDBOX} floor, never the server's.
 *
 * @param set          {@code --env K=V}, in order
 * @param unset        {@code --unset K}
 * @param sandbox      {@code --sandbox}, when given (a spelling)
 * @param stdin        whether the child reads the client's standard input (else {@code /dev/null})
 * @param allow        {@code --allow} values as written (relative to {@code cwd})
 * @param pass         {@code --pass} values as written
 * @param op           {@code --op SPELL}: the run is a spell op's child
 * @param target       {@code --target NAME} ({@code magus target NAME}): {@code argv} is then what is
 *                     appended to the target's command, and may be empty
 * @param allowHosts   {@code --allow-host} values: hosts the run's network proxy lets through beyond its policy
 * @param verbose      {@code -v}: magus's own lines as the command line prints them, debug ones too
 * @param quiet        {@code -q}: magus's lines are refusals and denials only
 * @param failOnDenial {@code --fail-on-denial}: a clean exit after a denial is status 3
 * @param supervise    {@code --supervise}; {@code --ask} supervises either way
 * @param ask          {@code --ask}, with how long each ask waits ({@code --ask-timeout}): each open the
 *                     policy refuses is put to the client while the child waits
 */
public record ServedRun(List<String> argv, String cwd, Map<String, String> env, Map<String, String> set,
        List<String> unset, Optional<String> sandbox, boolean stdin, List<String> allow, List<String> pass,
        Optional<String> op, Optional<String> target, List<String> allowHosts, boolean verbose, boolean quiet,
        boolean failOnDenial, boolean supervise, Optional<Duration> ask) {
    public ServedRun {
        Objects.requireNonNull(ask, "ask");
        if (ask.isPresent() && (ask.get().isNegative() || ask.get().isZero())) {
            throw new IllegalArgumentException("an ask's timeout must be positive: " + ask.get());
        }
        argv = List.copyOf(argv);
        Objects.requireNonNull(cwd, "cwd");
        env = Map.copyOf(env);
        set = Collections.unmodifiableMap(new LinkedHashMap<>(set));
        unset = List.copyOf(unset);
        Objects.requireNonNull(sandbox, "sandbox");
        allow = List.copyOf(allow);
        pass = List.copyOf(pass);
        Objects.requireNonNull(op, "op");
        Objects.requireNonNull(target, "target");
        allowHosts = List.copyOf(allowHosts);
    }
}
