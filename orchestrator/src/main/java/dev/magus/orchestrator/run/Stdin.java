package dev.magus.orchestrator.run;

/** What the child reads on descriptor 0. */
public sealed interface Stdin {
    /** {@code /dev/null}: the default, so a confined tool never waits on a terminal. */
    record None() implements Stdin {
    }

    /**
     * magus's own standard input (descriptor 0), given to the child as its descriptor 0, not
     * copied: a terminal stays a terminal ({@code isatty(0)}), and a file or pipe is read by the
     * child itself. Output still goes through pipes. An input no command reads as it is (a
     * directory, a device other than a terminal or {@code /dev/null}) is copied, as it always was.
     */
    record Inherit() implements Stdin {
    }

    /**
     * This open descriptor, given to the child as its descriptor 0, not copied: a forwarded
     * client's standard input, passed over the socket. Its holder keeps it open until the run has
     * ended (at least until the child has started); the child's copy stays the child's.
     */
    record Descriptor(int fd) implements Stdin {
        public Descriptor {
            if (fd < 0) {
                throw new IllegalArgumentException("not a descriptor: " + fd);
            }
        }
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
