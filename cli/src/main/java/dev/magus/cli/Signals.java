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
 *   <li>before {@code main}, the JVM's own handling ends magus with 128+N; nothing has been
 *       started yet, so that is right;</li>
 *   <li>from {@link #install()} (the first thing {@code main} does) until a command says it is
 *       about to run a child ({@link #hold()}), magus still exits with 128+N, but through this
 *       class, so that the decision to exit and a command's decision to go on are taken under
 *       one lock: either magus exits before the command holds, or the command holds and the
 *       signal is kept;</li>
 *   <li>held, signals are kept, in order, until the run exists ({@link #forward(Run)}), then
 *       handed to it; {@link Run#signal(int)} cancels the run when its spawn has not been
 *       decided yet (no child starts; 128+N), or sends the signal to the child's process group
 *       (it runs in a session of its own, away from the terminal, so a Ctrl-C reaches it only
 *       this way); magus then exits with the run's status.</li>
 * </ul>
 *
 * <p>A signal that was ignored when magus started (a background job of a non-interactive shell
 * ignores SIGINT, {@code nohup} ignores SIGHUP) stays ignored: the JVM installs no handler for
 * it, and magus, like any other program, honours its caller's choice.
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
