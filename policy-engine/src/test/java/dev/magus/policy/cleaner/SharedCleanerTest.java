package dev.magus.policy.cleaner;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class SharedCleanerTest {
    @Test
    void runsActionsOnOneNamedDaemonThread() throws Exception {
        CompletableFuture<Thread> first = new CompletableFuture<>();
        CompletableFuture<Thread> second = new CompletableFuture<>();
        SharedCleaner.CLEANER.register(new Object(), () -> first.complete(Thread.currentThread())).clean();
        // The thread runs what the collector finds unreachable; clean() runs it on the caller.
        Object dropped = new Object();
        SharedCleaner.CLEANER.register(dropped, () -> second.complete(Thread.currentThread()));
        dropped = null;
        Thread cleaner = null;
        for (int i = 0; i < 200 && cleaner == null; i++) {
            System.gc();
            try {
                cleaner = second.get(50, TimeUnit.MILLISECONDS);
            } catch (java.util.concurrent.TimeoutException e) {
                // not collected yet
            }
        }
        assertThat(first.get()).isSameAs(Thread.currentThread());
        assertThat(cleaner).isNotNull();
        assertThat(cleaner.getName()).isEqualTo(SharedCleaner.THREAD);
        assertThat(cleaner.isDaemon()).isTrue();
        assertThat(Thread.getAllStackTraces().keySet().stream().filter(t -> t.getName().equals(SharedCleaner.THREAD)))
                .hasSize(1);
    }
}
