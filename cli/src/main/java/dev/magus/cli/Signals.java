package dev.magus.cli;

import dev.magus.landlock.launch.Child;
import dev.magus.orchestrator.run.Run;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * SIGINT, SIGTERM and SIGHUP on the command line, from the first line of {@code main} to the
 * exit, so that none is lost whenever it comes:
 *
 * <ul>
 *   <li>until a command {@link #hold()}s, magus exits with 128+N; exiting and holding are decided
 *       under one lock, so a signal is either an exit or kept;</li>
 *   <li>held, signals are kept in order until the run exists ({@link #forward(Run)}): before the
 *       spawn they cancel it (128+N), after it they go to the child's process group (in a session
 *       of its own, so a Ctrl-C reaches it only this way).</li>
 * </ul>
 * A signal ignored when magus started ({@code nohup}) stays ignored, as the caller chose.
 */
final class Signals {
    private static final Map<String, Integer> FORWARDED = Map.of("INT", Child.SIGINT, "TERM", Child.SIGTERM,
            "HUP", Child.SIGHUP);

    private enum State {
        /** A signal ends magus with 128+N: nothing runs yet. */
        EXIT,
        /** A command is about to run a child: signals are kept for it. */
        HOLD,
        /** Signals go to the run. */
        FORWARD,
        /** A signal is ending magus; no command may start anything now. */
        EXITING
    }

    private static State state = State.EXIT;
    private static int exitingWith;
    private static final List<Integer> held = new ArrayList<>();
    private static Run run;

    private Signals() {
    }

    /** Takes SIGINT, SIGTERM and SIGHUP over from the JVM; call first thing in {@code main}. */
    @SuppressWarnings("restriction")
    static void install() {
        for (Map.Entry<String, Integer> s : FORWARDED.entrySet()) {
            int number = s.getValue();
            try {
                sun.misc.Signal.handle(new sun.misc.Signal(s.getKey()), sig -> on(number));
            } catch (IllegalArgumentException e) {
                // The JVM keeps this signal for itself here (-Xrs); its default then applies.
            }
        }
    }

    /**
     * A command is about to run a child: from now on signals are kept for the run.
     *
     * @return 128+N when signal N is already ending magus (the command must start nothing and
     *         return that), else 0
     */
    static synchronized int hold() {
        if (state == State.EXITING) {
            return 128 + exitingWith;
        }
        state = State.HOLD;
        run = null;
        return 0;
    }

    /** Hands the signals kept since {@link #hold()} to {@code r}, in order, and every later one. */
    static synchronized void forward(Run r) {
        if (state == State.EXITING) {
            r.cancel();
            return;
        }
        run = r;
        state = State.FORWARD;
        for (int signal : held) {
            r.signal(signal);
        }
        held.clear();
    }

    /** On the JVM's signal thread (and a test's). */
    static void on(int signal) {
        synchronized (Signals.class) {
            switch (state) {
                case HOLD -> {
                    held.add(signal);
                    return;
                }
                case FORWARD -> {
                    run.signal(signal);
                    return;
                }
                case EXITING -> {
                    return;
                }
                case EXIT -> {
                    state = State.EXITING;
                    exitingWith = signal;
                }
            }
        }
        // Outside the lock: exit runs shutdown hooks, and a command may be asking hold() meanwhile.
        System.exit(128 + signal);
    }
}
