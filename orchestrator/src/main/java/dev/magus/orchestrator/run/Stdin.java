package dev.magus.orchestrator.run;

/** What the child reads on descriptor 0. */
public sealed interface Stdin {
    /** {@code /dev/null}: the default, so a confined tool never waits on a terminal. */
    record None() implements Stdin {
    }

    /** magus's own standard input, copied to the child. */
    record Inherit() implements Stdin {
    }

    /** These bytes, then end of file. */
    record Bytes(byte[] bytes) implements Stdin {
        public Bytes {
            bytes = bytes.clone();
        }

        @Override
        public byte[] bytes() {
            return bytes.clone();
        }
    }

    /**
     * Whatever {@code in} yields, until its end, which closes the child's input: a forwarded
     * client's stdin frames, which arrive while the run goes. Read on magus's I/O threads.
     */
    record Stream(java.io.InputStream in) implements Stdin {
        public Stream {
            java.util.Objects.requireNonNull(in, "in");
        }
    }

    static Stdin none() {
        return new None();
    }
}
