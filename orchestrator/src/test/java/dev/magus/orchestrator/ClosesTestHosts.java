package dev.magus.orchestrator;

import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Closes every {@link TestHost} a test made once the test is over, as an owner of runs closes
 * its services: their I/O threads end and their watchdogs' loops exit, so that tests do not
 * pile up idle threads and loops. Registered for every test of the module (autodetected).
 */
public final class ClosesTestHosts implements AfterEachCallback {
    @Override
    public void afterEach(ExtensionContext context) {
        for (TestHost h; (h = TestHost.OPEN.poll()) != null; ) {
            h.close();
        }
    }
}
