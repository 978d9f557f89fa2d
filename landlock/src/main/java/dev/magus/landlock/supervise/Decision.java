package dev.magus.landlock.supervise;

/**
 * What an {@link Approver} says about an access the run's policy refused while the caller waits.
 * An allowed access is opened by magus itself, with exactly the flags the call asked for, and its
 * descriptor handed to the caller: the child's Landlock domain never grows.
 */
public sealed interface Decision {
    /** This call only: the next one asks again. */
    record AllowOnce() implements Decision {
        @Override
        public String label() {
            return "allow-once";
        }
    }

    /** This call and every later one of the same access to the same resolved path, for the rest of the run. */
    record AllowForRun() implements Decision {
        @Override
        public String label() {
            return "allow-for-run";
        }
    }

    /** The call fails with {@code EACCES}, as Landlock would have failed it. */
    record Deny() implements Decision {
        @Override
        public String label() {
            return "deny";
        }
    }

    Decision ALLOW_ONCE = new AllowOnce();
    Decision ALLOW_FOR_RUN = new AllowForRun();
    Decision DENY = new Deny();

    /** The spelling in an event's {@code decision} detail. */
    String label();
}
