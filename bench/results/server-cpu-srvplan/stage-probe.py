import sys
root=sys.argv[1]
p=root+'/orchestrator/src/main/java/dev/magus/orchestrator/Attempt.java'
s=open(p).read()
s=s.replace('''                    T value = stage.call();''','''                    long t0 = PROBE_MX.getCurrentThreadCpuTime();
                    T value = stage.call();
                    long dt = PROBE_MX.getCurrentThreadCpuTime() - t0;
                    String k = stage.getClass().getName().replaceAll("\\\\$\\\\$Lambda.*", "");
                    java.util.concurrent.atomic.AtomicLongArray a = PROBE.computeIfAbsent(stage.getClass().getName(), x -> new java.util.concurrent.atomic.AtomicLongArray(3));
                    a.compareAndSet(2, 0, PROBE_ORDER.incrementAndGet());
                    if (PROBE_ON.get()) { a.addAndGet(0, dt); a.incrementAndGet(1); }''')
s=s.replace('''    <T> Mono<T> step(Callable<T> stage) {''','''    static final java.lang.management.ThreadMXBean PROBE_MX = java.lang.management.ManagementFactory.getThreadMXBean();
    static final java.util.Map<String, java.util.concurrent.atomic.AtomicLongArray> PROBE = new java.util.concurrent.ConcurrentHashMap<>();
    static final java.util.concurrent.atomic.AtomicBoolean PROBE_ON = new java.util.concurrent.atomic.AtomicBoolean();
    static final java.util.concurrent.atomic.AtomicLong PROBE_N = new java.util.concurrent.atomic.AtomicLong();
    static final java.util.concurrent.atomic.AtomicLong PROBE_ORDER = new java.util.concurrent.atomic.AtomicLong();
    static {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> PROBE.values().stream().sorted(java.util.Comparator.comparingLong(v -> v.get(2)))
                .forEach(v -> System.out.printf("PROBE step %2d %8.3f ms x %d%n", v.get(2), v.get(0) / 1e6 / Math.max(1, v.get(1)), v.get(1)))));
    }

    <T> Mono<T> step(Callable<T> stage) {
        long probeN = PROBE_N.incrementAndGet(); if (probeN == 10 * 1000) { PROBE_ON.set(true); } if (probeN == 10 * 3000) { PROBE_ON.set(false); }''')
open(p,'w').write(s)
p=root+'/orchestrator/src/main/java/module-info.java'
s=open(p).read()
s=s.replace('    requires reactor.netty.core;','    requires reactor.netty.core;\n    requires java.management;')
open(p,'w').write(s)
