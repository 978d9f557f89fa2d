package dev.magus.orchestrator.binding;

import dev.magus.events.Code;
import dev.magus.events.Diagnostic;
import dev.magus.events.Layer;
import dev.magus.events.SandboxException;
import dev.magus.policy.PolicyOrOff;
import dev.magus.policy.Verdict;
import dev.magus.policy.fs.Access;
import dev.magus.policy.path.PathResolver;
import dev.magus.policy.path.Resolution;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;

/**
 * A session's files: each call checks the session's policy with the resolver and rules a confined
 * child's kernel rules come from, then opens exactly what it checked. The checked path is resolved
 * (every link followed, as the kernel would), its directory is opened with no link at any component
 * ({@link Pinned}), and the last name is opened beneath that descriptor without following a link:
 * a component swapped for a link between the check and the open makes the call fail instead of
 * reaching the link's target.
 *
 * <p>Each call needs what Landlock would ask of a child making it (a rename across directories:
 * no access at the new place the old one lacked, Landlock's refer rule); control files are never
 * written. A refusal is reported on the session's stream and thrown as a {@link SandboxException}
 * (MGS2001 read, MGS2002 write). Paths are relative to the session's working directory.
 */
public final class SandboxFiles {
    private static final Set<OpenOption> READ = Set.of(StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS);
    private static final int MAX_READ = Integer.MAX_VALUE - 8;

    private final PolicyOrOff policy;
    private final Path cwd;
    private final Consumer<Diagnostic> refused;
    private final PathResolver resolver = new PathResolver();

    SandboxFiles(PolicyOrOff policy, Path cwd, Consumer<Diagnostic> refused) {
        this.policy = policy;
        this.cwd = cwd;
        this.refused = refused;
    }

    /** The whole file. */
    public byte[] readAllBytes(Path file) throws IOException {
        try (InputStream in = newInputStream(file)) {
            return in.readNBytes(MAX_READ);
        }
    }

    /** A stream of the file, opened after the check. */
    public InputStream newInputStream(Path file) throws IOException {
        return Channels.newInputStream(readChannel(file));
    }

    /** Creates the file or replaces its content. */
    public void write(Path file, byte[] bytes) throws IOException {
        try (OutputStream out = newOutputStream(file, false)) {
            out.write(bytes);
        }
    }

    /** Appends to the file, creating it when missing. */
    public void append(Path file, byte[] bytes) throws IOException {
        try (OutputStream out = newOutputStream(file, true)) {
            out.write(bytes);
        }
    }

    /** A stream into the file, created when missing; truncated first unless {@code append}. */
    public OutputStream newOutputStream(Path file, boolean append) throws IOException {
        Path resolved = allow(Access.WRITE, file);
        Set<OpenOption> options = Set.of(StandardOpenOption.WRITE, StandardOpenOption.CREATE, LinkOption.NOFOLLOW_LINKS,
                append ? StandardOpenOption.APPEND : StandardOpenOption.TRUNCATE_EXISTING);
        try (Pinned dir = pinParent(resolved)) {
            return Channels.newOutputStream(FileChannel.open(dir.child(resolved.getFileName()), options));
        }
    }

    /** Creates one directory; its parent must exist. */
    public void createDirectory(Path dir) throws IOException {
        Path resolved = allow(Access.WRITE, dir);
        try (Pinned parent = pinParent(resolved)) {
            Files.createDirectory(parent.child(resolved.getFileName()));
        }
    }

    /** Creates the directory and every missing parent, each checked as it is made. */
    public void createDirectories(Path dir) throws IOException {
        Path absolute = cwd.resolve(dir);
        List<Path> missing = new ArrayList<>();
        for (Path p = absolute; p != null && !Files.isDirectory(p); p = p.getParent()) {
            missing.add(0, p);
        }
        for (Path p : missing) {
            try {
                createDirectory(p);
            } catch (FileAlreadyExistsException e) {
                if (!Files.isDirectory(p)) {
                    throw e;
                }
            }
        }
    }

    /** The directory's entries, each named as {@code dir} resolved with the entry's name, in the directory's order. */
    public List<Path> list(Path dir) throws IOException {
        Path resolved = allow(Access.READ, dir);
        List<Path> names = new ArrayList<>();
        try (Pinned pinned = Pinned.open(resolved);
                DirectoryStream<Path> entries = Files.newDirectoryStream(pinned.self())) {
            for (Path e : entries) {
                names.add(dir.resolve(e.getFileName().toString()));
            }
        }
        return List.copyOf(names);
    }

    /** Removes the file, link or empty directory (a link itself, never what it points at). */
    public void delete(Path path) throws IOException {
        Name name = name(path);
        Path resolvedParent = allowParent(path, name);
        try (Pinned dir = Pinned.open(resolvedParent)) {
            Files.delete(dir.child(name.last()));
        }
    }

    /** Renames {@code source} to {@code target}, replacing a file there. */
    public void move(Path source, Path target) throws IOException {
        Name from = name(source);
        Name to = name(target);
        Path fromParent = allowParent(source, from);
        Path toParent = allowParent(target, to);
        if (!fromParent.equals(toParent)) {
            refer(source, fromParent.resolve(from.last()), target, toParent.resolve(to.last()));
        }
        try (Pinned a = Pinned.open(fromParent); Pinned b = Pinned.open(toParent)) {
            Files.move(a.child(from.last()), b.child(to.last()), StandardCopyOption.ATOMIC_MOVE);
        }
    }

    /** Copies the file's bytes to {@code target}, created or replaced. */
    public void copy(Path source, Path target) throws IOException {
        try (InputStream in = newInputStream(source); OutputStream out = newOutputStream(target, false)) {
            in.transferTo(out);
        }
    }

    /** A read channel of the file, opened after the check (archives need to seek). */
    FileChannel readChannel(Path file) throws IOException {
        Path resolved = allow(Access.READ, file);
        try (Pinned dir = pinParent(resolved)) {
            return FileChannel.open(dir.child(resolved.getFileName()), READ);
        }
    }

    /** A symbolic link named {@code link} holding {@code target}, the name checked for writing as any new file. */
    void createLink(Path link, Path target) throws IOException {
        Path resolved = allow(Access.WRITE, link);
        try (Pinned dir = pinParent(resolved)) {
            Files.createSymbolicLink(dir.child(resolved.getFileName()), target);
        }
    }

    /** {@code path} resolved as the kernel would (links followed), existing or not. */
    Path resolve(Path path) throws IOException {
        Resolution r = resolver.resolve(path, cwd);
        if (r instanceof Resolution.Resolved resolved) {
            return resolved.path();
        }
        throw new IOException("too many symbolic links resolving " + path);
    }

    /** The resolved path, or the refusal reported and thrown. */
    private Path allow(Access op, Path path) {
        Verdict v = policy.check(op, path, cwd);
        if (v instanceof Verdict.Allowed allowed) {
            return allowed.resolved();
        }
        throw refusal(((Verdict.Denied) v).diagnostic());
    }

    /**
     * The resolved directory holding {@code path}'s last name, where a removal or rename happens:
     * {@code path} itself is not followed (a link is removed, not its target), so its parent is
     * resolved and must be writable by the rules, and a control file named there is refused.
     */
    private Path allowParent(Path path, Name name) throws IOException {
        Path parent = directory(name.parent());
        Path at = parent.resolve(name.last());
        // The control-file and lease checks of a write, on the name as it sits in its directory.
        allowName(path, at);
        if (policy.policy().isPresent() && !policy.policy().get().ruleset().permits(parent, Access.WRITE)) {
            throw refuse(path, parent, "removing or renaming a name needs the write right on its directory");
        }
        return parent;
    }

    /** The directory resolved as the kernel would; a missing one is the error the call would meet. */
    private Path directory(Path dir) throws IOException {
        Resolution r = resolver.resolve(dir, cwd);
        if (r instanceof Resolution.Resolved resolved && resolved.exists()) {
            return resolved.path();
        }
        throw new NoSuchFileException(dir.toString());
    }

    /**
     * The write checks of a name that is removed or renamed, not followed: a link there is the
     * name itself, so it is judged where it sits (a control file or outside a lease's globs is
     * refused), never by where it points.
     */
    private void allowName(Path asked, Path at) {
        if (!Files.isSymbolicLink(at)) {
            if (policy.check(Access.WRITE, at, cwd) instanceof Verdict.Denied denied) {
                throw refusal(denied.diagnostic());
            }
            return;
        }
        if (policy.policy().isEmpty()) {
            return;
        }
        var p = policy.policy().get();
        Optional<String> control = p.controlFiles().match(at);
        if (control.isPresent()) {
            throw refuse(asked, at, "a control file (" + control.get() + "): it holds instructions another tool follows later,"
                    + " outside any sandbox, so no declaration allows writing it");
        }
        for (var lease : p.leases()) {
            if (!lease.permitsWrite(at)) {
                throw refusal(lease.denial(asked, at));
            }
        }
    }

    /** Landlock's refer rule: what is moved must not gain an access at its new place. */
    private void refer(Path source, Path from, Path target, Path to) {
        if (policy.policy().isEmpty()) {
            return;
        }
        var rules = policy.policy().get().ruleset();
        for (Access a : Access.values()) {
            if (rules.permits(to, a) && !rules.permits(from, a)) {
                throw refuse(target, to, "a rename may not give " + source + " the " + a.name().toLowerCase(Locale.ROOT)
                        + " access it lacks where it is (the kernel refuses it: EXDEV)");
            }
        }
    }

    /** The MGS2002 of writing {@code resolved} (asked as {@code asked}), for a reason the caller gives: reported, to be thrown. */
    SandboxException refuse(Path asked, Path resolved, String why) {
        return refusal(Diagnostic.of(Code.MGS2002, "write denied: " + resolved + " (requested as " + asked + "): " + why,
                resolved.toString(), Access.WRITE.operation(), Layer.BINDING, "binding"));
    }

    /** {@code d} reported on the session's stream, as the exception to throw. */
    private SandboxException refusal(Diagnostic d) {
        refused.accept(d);
        return new SandboxException(d);
    }

    private Name name(Path path) {
        // Not normalised: "link/.." climbs out of the link's target, as the kernel reads it.
        Path absolute = cwd.resolve(path);
        Path last = absolute.getFileName();
        if (last == null || absolute.getParent() == null || last.toString().equals("..") || last.toString().equals(".")) {
            throw new IllegalArgumentException("not a name inside a directory: " + path);
        }
        return new Name(absolute.getParent(), last);
    }

    private static Pinned pinParent(Path resolved) throws IOException {
        Path parent = resolved.getParent();
        if (parent == null || resolved.getFileName() == null) {
            throw new IOException(resolved + " is not a name inside a directory");
        }
        return Pinned.open(parent);
    }

    private record Name(Path parent, Path last) {
    }
}
