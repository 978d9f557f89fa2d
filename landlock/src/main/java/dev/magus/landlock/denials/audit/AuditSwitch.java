package dev.magus.landlock.denials.audit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * The kernel's audit switch, shared by every magus process that reads audit records: the first
 * to need it switches audit on (and raises the backlog limit, so a burst is queued rather than
 * dropped), the last to be done puts back what it found. Audit is one switch for the whole
 * host, so without this the first of two overlapping runs to end would switch audit off under
 * the other.
 *
 * <p>The holders live in {@code audit.holders} beside {@code audit.lock} in a shared directory,
 * every change made under an exclusive {@code flock} of the lock file. The file's first line
 * is what to put back ({@code restore <enabled> <backlog limit>}, {@code restore none} when
 * audit was already on); each further line is a holder, {@code <pid> <start time>}. A holder
 * that died without letting go (killed) is pruned by the next process that takes the lock, so
 * audit still goes back off once the live holders are done.
 */
final class AuditSwitch {

    /** The backlog limit asked for when magus switches audit on: a burst of denials fits. */
    static final int BACKLOG = 8192;

    /** The kernel's switch, as {@link AuditNetlink} drives it (a seam for the tests). */
    interface Control {
        AuditNetlink.Status status();

        void setEnabled(int enabled);

        void setBacklogLimit(int limit);
    }

    private final Path dir;
    private final Control control;
    private final String self;
    private final Predicate<String> alive;

    /**
     * @param dir     the shared directory (created 0700 when missing)
     * @param control the kernel's switch
     * @param self    this process as a holder line, {@code <pid> <start time>}
     * @param alive   whether a holder line is a live process
     */
    AuditSwitch(Path dir, Control control, String self, Predicate<String> alive) {
        this.dir = dir;
        this.control = control;
        this.self = self;
        this.alive = alive;
    }

    /** For this process: holder identity and liveness from {@code /proc}. */
    static AuditSwitch forProcess(Path dir, Control control) {
        return new AuditSwitch(dir, control, holder(ProcessHandle.current().pid()).orElseThrow(), line -> {
            String[] f = line.split(" ");
            try {
                return holder(Long.parseLong(f[0])).filter(line::equals).isPresent();
            } catch (NumberFormatException e) {
                return false;
            }
        });
    }

    /** {@code <pid> <start time>} of a live process, from {@code /proc/<pid>/stat}; empty when gone. */
    static Optional<String> holder(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
            String[] rest = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            return Optional.of(pid + " " + rest[19]);
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    /**
     * Joins the holders; switches audit on when no live process holds it and it is off.
     *
     * @param mayEnable whether this process may switch audit on
     * @return false when audit is off, nobody holds it and {@code mayEnable} is false (nothing
     *         changed then)
     */
    boolean acquire(boolean mayEnable) {
        return locked(state -> {
            if (state.holders.isEmpty()) {
                if (state.restore.isEmpty()) {
                    AuditNetlink.Status now = control.status();
                    if (now.enabled() == 0) {
                        if (!mayEnable) {
                            return false;
                        }
                        control.setEnabled(1);
                        state.restore = "restore 0 " + now.backlogLimit();
                        if (now.backlogLimit() < BACKLOG) {
                            control.setBacklogLimit(BACKLOG);
                        }
                    } else {
                        state.restore = "restore none";
                    }
                }
                // else: a holder died holding it; what it found is still what to put back.
            }
            state.holders.add(self);
            return true;
        });
    }

    /** Leaves the holders; the last live one puts back what the first found. */
    void release() {
        locked(state -> {
            state.holders.remove(self);
            if (state.holders.isEmpty()) {
                String[] r = state.restore.split(" ");
                if (r.length == 3) {
                    control.setEnabled(Integer.parseInt(r[1]));
                    control.setBacklogLimit(Integer.parseInt(r[2]));
                }
                state.restore = "";
            }
            return true;
        });
    }

    /** The live holders, for tests and diagnostics. */
    List<String> holders() {
        List<String> out = new ArrayList<>();
        locked(state -> out.addAll(state.holders));
        return out;
    }

    private static final class State {
        String restore = "";
        final List<String> holders = new ArrayList<>();
    }

    private interface Step {
        boolean apply(State state);
    }

    private boolean locked(Step step) {
        // One JVM may not hold two locks of one file: its own threads queue here first.
        synchronized (AuditSwitch.class) {
            return lockedFile(step);
        }
    }

    private boolean lockedFile(Step step) {
        try {
            if (!Files.isDirectory(dir)) {
                Files.createDirectories(dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
            }
            Path holdersFile = dir.resolve("audit.holders");
            try (FileChannel lock = FileChannel.open(dir.resolve("audit.lock"), StandardOpenOption.CREATE,
                    StandardOpenOption.WRITE);
                 FileLock held = lock.lock()) {
                State state = new State();
                if (Files.exists(holdersFile)) {
                    List<String> lines = Files.readAllLines(holdersFile, StandardCharsets.UTF_8);
                    if (!lines.isEmpty() && lines.get(0).startsWith("restore ")) {
                        state.restore = lines.get(0);
                        lines.subList(1, lines.size()).stream().filter(l -> !l.isBlank()).filter(alive)
                                .forEach(state.holders::add);
                    }
                }
                boolean result = step.apply(state);
                if (state.restore.isEmpty() && state.holders.isEmpty()) {
                    Files.deleteIfExists(holdersFile);
                } else {
                    List<String> out = new ArrayList<>();
                    out.add(state.restore);
                    out.addAll(state.holders);
                    Path tmp = dir.resolve("audit.holders.tmp");
                    Files.write(tmp, out, StandardCharsets.UTF_8);
                    Files.move(tmp, holdersFile, java.nio.file.StandardCopyOption.REPLACE_EXISTING,
                            java.nio.file.StandardCopyOption.ATOMIC_MOVE);
                }
                return result;
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot share the audit switch through " + dir, e);
        }
    }
}
