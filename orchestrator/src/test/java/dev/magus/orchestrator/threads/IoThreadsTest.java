package dev.magus.orchestrator.threads;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** One pool per owner: its threads are its own, and they end when it is closed. */
class IoThreadsTest {
    @Test
    void aThreadIsItsOwnPoolsOnly() throws Exception {
        try (IoThreads one = new IoThreads(); IoThreads two = new IoThreads()) {
            CompletableFuture<boolean[]> seen = new CompletableFuture<>();
            one.execute(() -> seen.complete(new boolean[] {one.onIoThread(), two.onIoThread()}));
            boolean[] on = seen.get(10, TimeUnit.SECONDS);
            assertThat(on[0]).as("on one's thread").isTrue();
            assertThat(on[1]).as("not two's").isFalse();
            assertThat(one.onIoThread()).as("the test's thread is none of them").isFalse();
        }
    }

    @Test
    void closedItTakesNoMoreWorkAndItsThreadsEndOnceIdle() throws Exception {
        IoThreads pool = new IoThreads();
        CountDownLatch ran = new CountDownLatch(3);
        for (int i = 0; i < 3; i++) {
            pool.execute(ran::countDown);
        }
        assertThat(ran.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(pool.size()).isPositive();
        pool.close();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (pool.size() > 0 && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertThat(pool.size()).as("idle threads end when the pool is closed, not after %s", IoThreads.IDLE).isZero();
        assertThatThrownBy(() -> pool.execute(() -> { })).isInstanceOf(RejectedExecutionException.class);
    }
}
