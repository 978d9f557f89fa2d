package dev.magus.bench.spawn;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Reads a kernel scheduler trace (tracefs text: {@code sched_switch}, {@code sched_waking},
 * {@code sched_wakeup_new}) recorded during a {@link SpawnCompare} run, and says where each
 * spawn's time went between threads and CPUs: for a spawn handed to a launch thread, from the
 * caller waking it to the caller running again; for a {@code posix_spawn} on the calling
 * thread (the floor and mode off, not {@code ProcessBuilder}, whose child execs
 * {@code jspawnhelper} first), from the vfork'd child's creation to the parent running again. See {@code bench/sched-trace.sh}, which records the trace and runs this.
 *
 * <pre>java -cp bench/target/benchmarks.jar dev.magus.bench.spawn.SchedTrace trace.txt</pre>
 */
public final class SchedTrace {
    private SchedTrace() {
    }

    /** One trace line: the running task, its CPU, the time in µs, the event and its fields. */
    record Event(String comm, int pid, int cpu, double micros, String name, String fields) {
        /** The woken or created task's pid, for wakeup events. */
        int targetPid() {
            Matcher m = TARGET.matcher(fields);
            return m.find() ? Integer.parseInt(m.group(1)) : -1;
        }

        int targetCpu() {
            Matcher m = TARGET.matcher(fields);
            return m.find() ? Integer.parseInt(m.group(2)) : -1;
        }

        /** The task switched in, for {@code sched_switch}. */
        int nextPid() {
            Matcher m = NEXT.matcher(fields);
            return m.find() ? Integer.parseInt(m.group(1)) : -1;
        }
    }

    private static final Pattern LINE = Pattern.compile("^\\s*(.*)-(\\d+)\\s+\\[(\\d+)\\]\\s+\\S+\\s+(\\d+\\.\\d+): (\\w+): (.*)$");
    private static final Pattern TARGET = Pattern.compile("pid=(\\d+) prio=-?\\d+ target_cpu=(\\d+)");
    private static final Pattern NEXT = Pattern.compile("next_pid=(\\d+)");
    /** Launch threads' native names: {@code magus-sandbox-spare-N} and {@code magus-sandbox-launch-N}, cut to 15 bytes. */
    private static final String LAUNCH_THREAD = "magus-sandbox-";

    static Optional<Event> parse(String line) {
        Matcher m = LINE.matcher(line);
        if (!m.matches()) {
            return Optional.empty();
        }
        return Optional.of(new Event(m.group(1), Integer.parseInt(m.group(2)), Integer.parseInt(m.group(3)),
                Double.parseDouble(m.group(4)) * 1e6, m.group(5), m.group(6)));
    }

    /**
     * One spawn handed to a launch thread; times in µs. When the caller was not parked by the
     * time the launch thread finished (it needed no wake-up), {@code callerParked} is false and
     * {@code runToWakeCaller} / {@code wakeCallerToRun} are NaN; {@code runToCallerRuns} counts
     * either way.
     */
    record Handed(double wakeToRun, double runToClone, double cloneToRelease, double releaseToRun,
                  double runToWakeCaller, double wakeCallerToRun, double runToCallerRuns, double total,
                  boolean callerParked, boolean childOnLaunchCpu, boolean launchStayed, boolean callerOnLaunchCpu) {
    }

    /** One spawn on the calling thread: child created, vfork released, parent running again. */
    record Direct(double cloneToRelease, double releaseToRun, boolean parentStayed) {
    }

    /**
     * @param idleWakes µs from {@code sched_waking} to {@code sched_wakeup} when the woken task
     *                  is placed on another CPU that was idle (the wake-up is an interrupt to it)
     * @param localWakes the same, when it is placed on the waker's own CPU
     */
    record Summary(List<Handed> handed, int launchThreads, List<Direct> direct, double[] idleWakes, double[] localWakes) {
    }

    static Summary analyse(List<Event> events) {
        // A launch thread creates exactly one task (its child); the refill thread creates many.
        Map<Integer, Integer> created = new HashMap<>();
        for (Event e : events) {
            if (e.name().equals("sched_wakeup_new") && e.comm().startsWith(LAUNCH_THREAD)) {
                created.merge(e.pid(), 1, Integer::sum);
            }
        }
        List<Handed> handed = new ArrayList<>();
        int launchThreads = 0;
        for (Map.Entry<Integer, Integer> c : created.entrySet()) {
            if (c.getValue() == 1) {
                launchThreads++;
                handedSpawn(events, c.getKey()).ifPresent(handed::add);
            }
        }
        return new Summary(handed, launchThreads, directSpawns(events), wakes(events, true), wakes(events, false));
    }

    /** Wake-up latencies, from each {@code sched_waking} to the task's next {@code sched_wakeup}. */
    private static double[] wakes(List<Event> events, boolean remoteIdle) {
        Map<Integer, Event> waking = new HashMap<>();
        List<Double> out = new ArrayList<>();
        for (Event e : events) {
            if (e.name().equals("sched_waking")) {
                waking.put(e.targetPid(), e);
            } else if (e.name().equals("sched_wakeup")) {
                Event w = waking.remove(e.targetPid());
                if (w == null) {
                    continue;
                }
                boolean onIdle = e.pid() == 0 && e.cpu() != w.cpu() && e.targetCpu() == e.cpu();
                boolean local = e.cpu() == w.cpu() && e.targetCpu() == w.cpu();
                if (remoteIdle ? onIdle : local) {
                    out.add(e.micros() - w.micros());
                }
            }
        }
        return out.stream().mapToDouble(Double::doubleValue).toArray();
    }

    private static Optional<Handed> handedSpawn(List<Event> events, int launch) {
        int clone = -1;
        for (int i = 0; i < events.size(); i++) {
            Event e = events.get(i);
            if (e.pid() == launch && e.name().equals("sched_wakeup_new")) {
                clone = i;
                break;
            }
        }
        if (clone < 0) {
            return Optional.empty();
        }
        // The hand-off: the last wake-up of the launch thread before its clone; then its first
        // switch-in after that (a preemption in between stays in "it runs -> child created").
        int wake = -1;
        for (int i = clone - 1; i >= 0; i--) {
            Event e = events.get(i);
            if (e.name().equals("sched_waking") && e.targetPid() == launch) {
                wake = i;
                break;
            }
        }
        int run = wake < 0 ? -1 : runs(events, wake + 1, launch);
        if (run < 0 || run > clone) {
            return Optional.empty();
        }
        int caller = events.get(wake).pid();
        Event cloned = events.get(clone);
        int child = cloned.targetPid();
        int release = find(events, clone + 1, e -> e.pid() == child && e.name().equals("sched_waking") && e.targetPid() == launch);
        int run2 = release < 0 ? -1 : runs(events, release + 1, launch);
        if (run2 < 0) {
            return Optional.empty();
        }
        // The caller runs again next: woken by the launch thread if it had parked, or simply
        // switched in (it was still runnable, or had not parked yet).
        int callerRun = runs(events, run2 + 1, caller);
        if (callerRun < 0) {
            return Optional.empty();
        }
        int wakeCaller = find(events, run2, e -> e.pid() == launch && e.name().equals("sched_waking") && e.targetPid() == caller);
        boolean parked = wakeCaller >= 0 && wakeCaller < callerRun;
        double t0 = events.get(wake).micros();
        Event r = events.get(run);
        Event r2 = events.get(run2);
        Event cr = events.get(callerRun);
        double toWake = parked ? events.get(wakeCaller).micros() - r2.micros() : Double.NaN;
        double wakeToCaller = parked ? cr.micros() - events.get(wakeCaller).micros() : Double.NaN;
        return Optional.of(new Handed(r.micros() - t0, cloned.micros() - r.micros(),
                events.get(release).micros() - cloned.micros(), r2.micros() - events.get(release).micros(),
                toWake, wakeToCaller, cr.micros() - r2.micros(), cr.micros() - t0, parked,
                cloned.cpu() == r.cpu() && cloned.targetCpu() == cloned.cpu(), r2.cpu() == r.cpu(), cr.cpu() == r2.cpu()));
    }

    private static List<Direct> directSpawns(List<Event> events) {
        List<Direct> out = new ArrayList<>();
        for (int i = 0; i < events.size(); i++) {
            Event e = events.get(i);
            // The caller of SpawnCompare is the JVM's main thread, whose native name is "java".
            if (!e.name().equals("sched_wakeup_new") || !e.comm().equals("java")) {
                continue;
            }
            int parent = e.pid();
            int child = e.targetPid();
            // ProcessBuilder's child execs jspawnhelper first, which then execs the command: not a bare posix_spawn.
            int exec = find(events, i + 1, f -> f.pid() == child && f.name().equals("sched_process_exec"), 400);
            if (exec < 0 || events.get(exec).fields().contains("jspawnhelper")) {
                continue;
            }
            int release = find(events, i + 1, f -> f.pid() == child && f.name().equals("sched_waking") && f.targetPid() == parent, 400);
            int run = release < 0 ? -1 : runs(events, release + 1, parent, 400);
            if (run >= 0) {
                out.add(new Direct(events.get(release).micros() - e.micros(),
                        events.get(run).micros() - events.get(release).micros(), events.get(run).cpu() == e.cpu()));
            }
        }
        return out;
    }

    /**
     * The first event from {@code from} on that shows {@code pid} running: its switch-in, any
     * event it emits itself, or its wake-up on an idle CPU (emitted by the idle task of the CPU it
     * lands on, which switches to it at once; the trace sometimes lacks that switch line).
     */
    static int runs(List<Event> events, int from, int pid) {
        return runs(events, from, pid, Integer.MAX_VALUE);
    }

    private static int runs(List<Event> events, int from, int pid, int within) {
        return find(events, from, e -> (e.name().equals("sched_switch") && e.nextPid() == pid)
                || e.pid() == pid
                || (e.name().equals("sched_wakeup") && e.pid() == 0 && e.targetPid() == pid && e.targetCpu() == e.cpu()), within);
    }

    private static int find(List<Event> events, int from, java.util.function.Predicate<Event> p) {
        return find(events, from, p, Integer.MAX_VALUE);
    }

    private static int find(List<Event> events, int from, java.util.function.Predicate<Event> p, int within) {
        int end = (int) Math.min(events.size(), (long) from + within);
        for (int i = from; i < end; i++) {
            if (p.test(events.get(i))) {
                return i;
            }
        }
        return -1;
    }

    static String report(Summary s) {
        StringBuilder b = new StringBuilder();
        List<Handed> h = s.handed();
        b.append(String.format(Locale.ROOT, "launch threads (created one task each): %d; spawns followed to the caller running again: %d%n",
                s.launchThreads(), h.size()));
        b.append(String.format(Locale.ROOT, "spawns handed to a launch thread: %d (medians, µs; p90 in brackets)%n", h.size()));
        if (!h.isEmpty()) {
            List<Handed> parked = h.stream().filter(Handed::callerParked).toList();
            Map<String, double[]> cols = new LinkedHashMap<>();
            cols.put("caller wakes launch thread -> it runs", h.stream().mapToDouble(Handed::wakeToRun).toArray());
            cols.put("it runs -> child created (affinity, no_new_privs, restrict, posix_spawn set-up)", h.stream().mapToDouble(Handed::runToClone).toArray());
            cols.put("child created -> vfork released (exec)", h.stream().mapToDouble(Handed::cloneToRelease).toArray());
            cols.put("vfork released -> launch thread runs again", h.stream().mapToDouble(Handed::releaseToRun).toArray());
            cols.put("launch thread runs again -> caller runs (woken or not)", h.stream().mapToDouble(Handed::runToCallerRuns).toArray());
            cols.put("  caller parked (" + parked.size() + "): launch thread runs again -> wakes it", parked.stream().mapToDouble(Handed::runToWakeCaller).toArray());
            cols.put("  caller parked (" + parked.size() + "): caller woken -> caller runs", parked.stream().mapToDouble(Handed::wakeCallerToRun).toArray());
            cols.put("total: caller wakes launch thread -> caller runs", h.stream().mapToDouble(Handed::total).toArray());
            cols.forEach((k, v) -> row(b, k, v, false));
            b.append(String.format(Locale.ROOT, "  child created on the launch thread's CPU: %d of %d%n",
                    h.stream().filter(Handed::childOnLaunchCpu).count(), h.size()));
            b.append(String.format(Locale.ROOT, "  launch thread back on the same CPU after the vfork: %d of %d%n",
                    h.stream().filter(Handed::launchStayed).count(), h.size()));
            b.append(String.format(Locale.ROOT, "  caller runs on the launch thread's CPU: %d of %d%n",
                    h.stream().filter(Handed::callerOnLaunchCpu).count(), h.size()));
        }
        b.append(String.format(Locale.ROOT, "wake-ups, sched_waking -> sched_wakeup (every task; medians, µs; p90 in brackets)%n"));
        row(b, "onto another CPU that was idle (an interrupt wakes it)", s.idleWakes(), true);
        row(b, "onto the waker's own CPU", s.localWakes(), true);
        List<Direct> d = s.direct();
        b.append(String.format(Locale.ROOT, "posix_spawn on the calling thread (the floor and mode off; not ProcessBuilder): %d (medians, µs; p90 in brackets)%n", d.size()));
        if (!d.isEmpty()) {
            double[] c = d.stream().mapToDouble(Direct::cloneToRelease).toArray();
            double[] r = d.stream().mapToDouble(Direct::releaseToRun).toArray();
            row(b, "child created -> vfork released (exec)", c, false);
            row(b, "vfork released -> parent runs again", r, false);
            b.append(String.format(Locale.ROOT, "  parent runs again on the CPU it spawned from: %d of %d%n",
                    d.stream().filter(Direct::parentStayed).count(), d.size()));
        }
        return b.toString();
    }

    /** One report row: median and [p90] of {@code v} in µs, or "none"; with the count in parentheses when asked. */
    private static void row(StringBuilder b, String what, double[] v, boolean withCount) {
        if (v.length == 0) {
            b.append(String.format(Locale.ROOT, "  %-82s    none%n", what));
        } else if (withCount) {
            b.append(String.format(Locale.ROOT, "  %-82s %7.0f  [%7.0f]  (%d)%n", what, median(v), p90(v), v.length));
        } else {
            b.append(String.format(Locale.ROOT, "  %-82s %7.0f  [%7.0f]%n", what, median(v), p90(v)));
        }
    }

    static double median(double[] v) {
        return percentile(v, 50);
    }

    static double p90(double[] v) {
        return percentile(v, 90);
    }

    private static double percentile(double[] v, int p) {
        double[] s = v.clone();
        Arrays.sort(s);
        return SpawnCompare.Stats.percentile(s, p);
    }

    public static void main(String[] args) throws IOException {
        if (args.length != 1) {
            System.err.println("usage: SchedTrace <tracefs text trace>");
            System.exit(2);
        }
        List<Event> events;
        // Latin-1: every byte is a character. A task name cut to 15 bytes may split a UTF-8 one.
        try (Stream<String> lines = Files.lines(Path.of(args[0]), StandardCharsets.ISO_8859_1)) {
            events = lines.map(SchedTrace::parse).flatMap(Optional::stream).toList();
        }
        if (events.isEmpty()) {
            System.err.println("SchedTrace: no line of " + args[0] + " reads as a tracefs event line"
                    + " (\"comm-pid [cpu] flags seconds.micros: event: fields\"); was irq-info off, or another trace_clock set?");
            System.exit(1);
        }
        System.out.print(report(analyse(events)));
    }
}
