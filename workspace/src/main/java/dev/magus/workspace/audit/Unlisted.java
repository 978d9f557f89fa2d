package dev.magus.workspace.audit;

import dev.magus.policy.path.DirectoryReader.Stamp;
import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;

/**
 * A directory in the audited tree that a walk could not list (no permission, a path too long,
 * a name the reader cannot pass on): a control file beneath it would be hidden, so after the
 * run it is <em>unaudited</em> (an MGS2002 that fails the run) unless it provably kept
 * everyone out during the run ({@link #untouchedBy}).
 *
 * @param path       the directory
 * @param parent     the index of the directory whose listing named it, in the walk's dirs; -1
 *                   for a root; {@link #IN_CONTROL} beneath a control directory recorded whole
 * @param stamp      what {@code lstat} said of it, when it answered
 * @param searchable whether {@code lstat("dir/.")} answered: then a child can write beneath
 *                   it without changing it
 */
record Unlisted(Path path, int parent, Optional<Stamp> stamp, boolean searchable, ControlNames.Place place) {
    static final int IN_CONTROL = -2;

    Unlisted {
        Objects.requireNonNull(path, "path");
        Objects.requireNonNull(stamp, "stamp");
        Objects.requireNonNull(place, "place");
    }

    /**
     * Whether nothing beneath this directory (as found before the run) can have changed, given
     * what it is after the run: it could not be searched either time, so no name beneath it
     * was reachable, and it is the same inode with the same mode and times, so nobody made it
     * searchable meanwhile (a {@code chmod} moves its ctime, and ctime cannot be set back).
     */
    boolean untouchedBy(Unlisted after) {
        if (searchable || after.searchable || stamp.isEmpty() || after.stamp.isEmpty()) {
            return false;
        }
        Stamp a = stamp.get();
        Stamp b = after.stamp.get();
        return a.dev() == b.dev() && a.ino() == b.ino() && a.mode() == b.mode()
                && a.mtimeNanos() == b.mtimeNanos() && a.ctimeNanos() == b.ctimeNanos();
    }
}
