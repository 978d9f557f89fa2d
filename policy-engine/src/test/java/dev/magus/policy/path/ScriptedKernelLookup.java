package dev.magus.policy.path;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * The {@link KernelLookup} this module's tests install (META-INF/services under test
 * resources): silent unless the current thread scripts it with {@link #script}, in which case
 * it records every question and answers from the script. Per thread, so test classes running
 * side by side cannot see each other's script.
 */
public final class ScriptedKernelLookup implements KernelLookup {

    private static final ThreadLocal<Script> SCRIPT = new ThreadLocal<>();

    /** What one test made the lookup say, and what it was asked. */
    public static final class Script implements AutoCloseable {
        private final Function<String, Optional<String>> answers;
        private final List<String> asked = new ArrayList<>();
        private Function<String, Unlinked> unlinked = p -> Unlinked.UNKNOWN;
        private final List<String> askedUnlinked = new ArrayList<>();

        private Script(Function<String, Optional<String>> answers) {
            this.answers = answers;
        }

        /** From now on {@link KernelLookup#unlinked} answers from {@code answers} (UNKNOWN until then). */
        public Script unlinked(Function<String, Unlinked> answers) {
            this.unlinked = answers;
            return this;
        }

        /** Every path asked of {@link KernelLookup#unlinked}, in order. */
        public List<String> askedUnlinked() {
            return List.copyOf(askedUnlinked);
        }

        /** Every path asked, in order. */
        public List<String> asked() {
            return List.copyOf(asked);
        }

        @Override
        public void close() {
            SCRIPT.remove();
        }
    }

    /** Until the returned script is closed, answers on this thread come from {@code answers}. */
    public static Script script(Map<String, String> answers) {
        return script(p -> Optional.ofNullable(answers.get(p)));
    }

    /** Until the returned script is closed, answers on this thread come from {@code answers}. */
    public static Script script(Function<String, Optional<String>> answers) {
        Script s = new Script(answers);
        SCRIPT.set(s);
        return s;
    }

    @Override
    public Optional<String> realPath(String absolutePath) {
        Script s = SCRIPT.get();
        if (s == null) {
            return Optional.empty();
        }
        s.asked.add(absolutePath);
        return s.answers.apply(absolutePath);
    }

    @Override
    public Unlinked unlinked(String plainPath) {
        Script s = SCRIPT.get();
        if (s == null) {
            return Unlinked.UNKNOWN;
        }
        s.askedUnlinked.add(plainPath);
        return s.unlinked.apply(plainPath);
    }
}
