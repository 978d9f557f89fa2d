package dev.magus.bench.spawn;

import com.sun.management.OperatingSystemMXBean;
import dev.magus.landlock.launch.Launcher;
import java.lang.management.ManagementFactory;

/**
 * What making the process's launcher costs, with its warm-up children ({@code warm}, as a
 * server makes it) or without ({@code oneshot}, as a CLI run does): the wall
 * and the process CPU of {@code Launcher.get()}, JNA already loaded. One fresh JVM per figure:
 *
 * <pre>
 * for m in warm oneshot warm oneshot; do java -cp bench/target/benchmarks.jar dev.magus.bench.spawn.WarmUpCost $m; done
 * </pre>
 */
public final class WarmUpCost {
    private WarmUpCost() {
    }

    public static void main(String[] args) {
        String mode = args.length > 0 ? args[0] : "oneshot";
        if (!mode.equals("warm") && !mode.equals("oneshot")) {
            System.err.println("usage: WarmUpCost warm|oneshot");
            System.exit(2);
        }
        dev.magus.landlock.sys.Natives.syscalls(); // JNA's own loading is not what is compared
        if (mode.equals("oneshot")) {
            Launcher.oneShot();
        }
        OperatingSystemMXBean os = (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        long cpu0 = os.getProcessCpuTime();
        long t0 = System.nanoTime();
        Launcher.get();
        long t1 = System.nanoTime();
        long cpu1 = os.getProcessCpuTime();
        System.out.printf("%s: Launcher.get() wall %.1f ms, process CPU %.1f ms%n", mode, (t1 - t0) / 1e6, (cpu1 - cpu0) / 1e6);
    }
}
