package dev.magus.server.client;

/**
 * Stands in for the full command line ({@code magus.main}) in the forwarding clients' tests:
 * says what it was handed and exits 42, so a test sees exactly when and how a client gave up
 * the run.
 */
public final class FullCommandLineStub {
    private FullCommandLineStub() {
    }

    public static void main(String[] args) {
        System.out.println("full command line: " + String.join("|", args));
        System.out.flush();
        System.exit(42);
    }
}
