package dev.magus.landlock.launch;

import com.sun.jna.Memory;
import dev.magus.events.Mode;
import dev.magus.landlock.abi.LandlockProbe;
import dev.magus.landlock.sys.LibC;
import dev.magus.landlock.sys.Natives;
import dev.magus.policy.fs.AccessMode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.stream.Stream;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * Run by {@link NoWarmUpTest} in a JVM of its own, so that no other test has warmed anything:
 * a one-shot launcher (no warm-up children) takes every launch path under a domain that grants
 * the system directories and {@code args[0]} only, so not the class path; then JNA's cleaner,
 * the process reaper and a Reactor worker are used, and every thread of the process is checked
 * for no_new_privs (which each launch thread sets before its domain, and which a thread it
 * started would inherit with the domain). One line per finding, on stdout.
 */
final class NoWarmUpProbe {
    private NoWarmUpProbe() {
    }

    public static void main(String[] args) throws Exception {
        Path dir = Path.of(args[0]).toRealPath();
        Launcher.oneShot();
        Launcher launcher = Launcher.get();
        System.out.println("launch threads before any spawn: " + Launcher.launchThreadsStarted());
        Path classFile = Path.of(NoWarmUpProbe.class.getProtectionDomain().getCodeSource().getLocation().toURI())
                .resolve(NoWarmUpProbe.class.getName().replace('.', '/') + ".class");
        Path script = dir.resolve("no-shebang");
        Files.writeString(script, "echo via-shell\n");
        Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwx------"));
        Path trueBin = Children.real(Path.of("/bin/true"));
        Map<String, String> env = Children.env(dir);
        try (Confinement c = Confinement.prepare(Mode.REQUIRED, Children.systemPlus(Children.rule(dir, AccessMode.RX)),
                LandlockProbe.kernel())) {
            SpareThreads one = new SpareThreads(1, false);
            SpareThreads none = new SpareThreads(0, false);
            for (SpareThreads pool : List.of(one, none)) {
                String via = pool == one ? "spare" : "fresh";
                for (Stdio stdio : Stdio.Standard.values()) {
                    say(via + " true " + stdio, launcher, SpawnRequest.of(trueBin, List.of(), env, dir).withStdio(stdio), c, pool);
                }
                say(via + " script", launcher, SpawnRequest.of(script, List.of(), env, dir), c, pool);
                say(via + " missing", launcher, SpawnRequest.of(dir.resolve("missing"), List.of(), env, dir), c, pool);
                say(via + " class path", launcher, new SpawnRequest(Children.SH, List.of("sh", "-c",
                        "cat \"$1\" >/dev/null 2>&1 && echo readable || echo denied", "sh", classFile.toString()),
                        env, dir, Stdio.PIPES), c, pool);
            }
            one.close();
            // The process's own pool and spares, as a run uses them.
            System.out.println("shared " + Children.run(SpawnRequest.of(trueBin, List.of(), env, dir), c).status());
        }
        // The JVM's helper threads, used after the spawns from this ordinary thread.
        Memory m = new Memory(64);
        m.setLong(0, 1);
        Process p = new ProcessBuilder(trueBin.toString()).start();
        System.out.println("process reaper " + p.onExit().get().exitValue());
        System.out.println("boundedElastic " + Mono.fromCallable(() -> Thread.currentThread().getName())
                .subscribeOn(Schedulers.boundedElastic()).block());
        awaitLaunchThreads();
        // A control: a thread with no_new_privs of its own must be found.
        CountDownLatch set = new CountDownLatch(1);
        CountDownLatch done = new CountDownLatch(1);
        Thread control = new Thread(() -> {
            Natives.syscalls().prctl(LibC.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
            set.countDown();
            try {
                done.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "nnp-control");
        control.start();
        set.await();
        List<String> names = new ArrayList<>();
        List<String> flagged = new ArrayList<>();
        // A launch thread's native exit follows its Java end by a moment: scanned again (bounded)
        // while one may still be going; a helper thread inside a domain stays for good.
        long deadline = System.nanoTime() + 10_000_000_000L;
        do {
            names.clear();
            flagged.clear();
            scan(names, flagged);
        } while (!flagged.equals(List.of("nnp-control")) && System.nanoTime() < deadline && pause());
        done.countDown();
        System.out.println("threads " + names);
        System.out.println("no_new_privs " + flagged);
        System.out.flush();
        System.exit(0);
    }

    private static void say(String what, Launcher launcher, SpawnRequest request, Confinement c, SpareThreads pool) {
        pool.refill();
        pool.awaitStarted();
        Spawn s = launcher.spawn(request, c, pool);
        if (s instanceof Spawn.NotStarted n) {
            System.out.println(what + " " + n.status());
            return;
        }
        Children.Result r = Children.collect(((Spawn.Started) s).child());
        System.out.println(what + " " + r.status() + (r.out().isEmpty() ? "" : " " + r.out().strip()));
    }

    private static void scan(List<String> names, List<String> flagged) throws java.io.IOException {
        try (Stream<Path> tasks = Files.list(Path.of("/proc/self/task"))) {
            for (Path task : tasks.toList()) {
                List<String> status;
                try {
                    status = Files.readAllLines(task.resolve("status"));
                } catch (java.io.IOException e) {
                    continue; // ended meanwhile
                }
                String name = field(status, "Name");
                names.add(name);
                if (!"0".equals(field(status, "NoNewPrivs"))) {
                    flagged.add(name);
                }
            }
        }
    }

    private static boolean pause() throws InterruptedException {
        Thread.sleep(50);
        return true;
    }

    /** Launch threads end right after their spawn returned; waits for the last ones. */
    private static void awaitLaunchThreads() throws InterruptedException {
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.getName().startsWith("magus-sandbox-launch-")) {
                t.join(10_000);
            }
        }
    }

    private static String field(List<String> status, String name) {
        return status.stream().filter(l -> l.startsWith(name + ":")).map(l -> l.substring(name.length() + 1).strip())
                .findFirst().orElse("?");
    }
}
