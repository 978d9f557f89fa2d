package dev.magus.workspace.jobs;

import dev.magus.events.Code;
import dev.magus.events.Diagnostic;
import dev.magus.events.Layer;
import dev.magus.events.Operation;
import dev.magus.events.SandboxException;
import dev.magus.policy.lease.WriteGlob;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.sqlite.SQLiteConfig;

/**
 * The job store: one SQLite file ({@code jobs.db} in magus's state dir) shared by every magus
 * process of the user. Its schema is versioned ({@code PRAGMA user_version}); {@link #open}
 * migrates in one immediate transaction, so two processes opening an old store migrate it once,
 * and refuses a newer store untouched. WAL mode and a busy timeout: readers never block the
 * writer, and a writer waits for another. Every write is one {@code BEGIN IMMEDIATE}
 * transaction, never a read upgraded half way. Anything wrong with the file is a
 * {@link SandboxException} with an MGS2004 naming the file. One instance holds one connection
 * and is safe to share between threads; instances coordinate through SQLite's locks.
 */
public final class JobStore implements AutoCloseable {
    /** How long a writer waits for another before the store reports it locked. */
    public static final int DEFAULT_BUSY_TIMEOUT_MS = 5_000;

    private final Path file;
    private final Connection connection;
    private final int busyTimeoutMs;
    private final Clock clock;

    private JobStore(Path file, Connection connection, int busyTimeoutMs, Clock clock) {
        this.file = file;
        this.connection = connection;
        this.busyTimeoutMs = busyTimeoutMs;
        this.clock = clock;
    }

    /** Opens (creating it and its directory, 0700, when missing) the store at {@code file}. */
    public static JobStore open(Path file) {
        return open(file, DEFAULT_BUSY_TIMEOUT_MS, Clock.systemUTC());
    }

    /**
     * Opens an existing store; empty when there is none, without creating it: a workspace that
     * never added a job has nothing to narrow.
     */
    public static Optional<JobStore> openExisting(Path file) {
        if (!Files.exists(file)) {
            return Optional.empty();
        }
        return Optional.of(open(file));
    }

    /**
     * @param busyTimeoutMs how long to wait on another process's lock before MGS2004
     * @param clock         the time stamps' source
     */
    public static JobStore open(Path file, int busyTimeoutMs, Clock clock) {
        Path db = file.toAbsolutePath().normalize();
        create(db);
        SQLiteConfig config = new SQLiteConfig();
        config.setBusyTimeout(busyTimeoutMs);
        config.enforceForeignKeys(true);
        config.setTransactionMode(SQLiteConfig.TransactionMode.IMMEDIATE);
        Connection c = null;
        try {
            c = config.createConnection("jdbc:sqlite:" + db);
            JobStore store = new JobStore(db, c, busyTimeoutMs, clock);
            store.prepare();
            return store;
        } catch (SQLException e) {
            closeQuietly(c);
            throw StoreErrors.of(db, e, busyTimeoutMs);
        } catch (RuntimeException e) {
            closeQuietly(c);
            throw e;
        }
    }

    /** The state dir 0700 and the file 0600 before SQLite sees them: SQLite would follow the umask. */
    private static void create(Path db) {
        try {
            Path dir = db.getParent();
            if (!Files.isDirectory(dir)) {
                Files.createDirectories(dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
            }
            if (!Files.exists(db)) {
                Files.createFile(db, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
            }
        } catch (java.nio.file.FileAlreadyExistsException e) {
            // another process created it first: fine, SQLite sorts out who initializes it
        } catch (IOException | UnsupportedOperationException e) {
            throw StoreErrors.refuse(db, "cannot be created: " + e, e);
        }
        if (!Files.isReadable(db)) {
            throw StoreErrors.refuse(db, "cannot be read (check that it is yours)", null);
        }
    }

    private void prepare() throws SQLException {
        try (Statement s = connection.createStatement()) {
            // The first statement reads the header: a file that is not a database fails here.
            int version = userVersion(s);
            if (version > Schema.LATEST) {
                throw newer(version);
            }
            // Persistent in the file; cannot run inside a transaction.
            try (ResultSet rs = s.executeQuery("PRAGMA journal_mode=WAL")) {
                rs.next();
            }
            if (version == Schema.LATEST) {
                return;
            }
        }
        connection.setAutoCommit(false);
        try (Statement s = connection.createStatement()) {
            // setAutoCommit(false) began an immediate transaction, so this runs under the write
            // lock: read again, another process may have migrated meanwhile.
            int version = userVersion(s);
            if (version > Schema.LATEST) {
                throw newer(version);
            }
            for (Schema.Migration m : Schema.MIGRATIONS) {
                if (m.version() > version) {
                    for (String sql : m.statements()) {
                        s.executeUpdate(sql);
                    }
                    s.executeUpdate("PRAGMA user_version = " + m.version());
                }
            }
            connection.commit();
        } catch (SQLException | RuntimeException e) {
            connection.rollback();
            throw e;
        } finally {
            connection.setAutoCommit(true);
        }
    }

    private static int userVersion(Statement s) throws SQLException {
        try (ResultSet rs = s.executeQuery("PRAGMA user_version")) {
            return rs.next() ? rs.getInt(1) : 0;
        }
    }

    private SandboxException newer(int version) {
        return StoreErrors.refuse(file, "has schema version " + version + ", newer than this magus knows (" + Schema.LATEST
                + "); use the magus that wrote it, or a newer one", null);
    }

    /** The file. */
    public Path file() {
        return file;
    }

    /** The schema version of the open store. */
    public synchronized int schemaVersion() {
        return read(() -> {
            try (Statement s = connection.createStatement()) {
                return userVersion(s);
            }
        });
    }

    /**
     * Adds a live job.
     *
     * @param parent     the delegating job, which must exist and be live
     * @param writePaths validated globs; may be empty (the job is then never narrowed)
     * @throws SandboxException MGS2004 for an unknown or ended parent, or a store that cannot be written
     */
    public synchronized Job add(Optional<JobId> parent, List<WriteGlob> writePaths) {
        Objects.requireNonNull(parent, "parent");
        Instant now = clock.instant();
        return write(() -> {
            if (parent.isPresent()) {
                Job p = find(parent.get()).orElseThrow(() -> unknown(parent.get(), "--parent"));
                if (!p.live()) {
                    throw refuse("job " + p.id() + " has ended (" + p.state().label() + "): a parent must be live", "--parent");
                }
                withinParent(p, writePaths);
            }
            long id;
            try (PreparedStatement ps = connection.prepareStatement(
                    "INSERT INTO jobs (parent, state, created_ms) VALUES (?, 'live', ?)", Statement.RETURN_GENERATED_KEYS)) {
                if (parent.isPresent()) {
                    ps.setLong(1, parent.get().value());
                } else {
                    ps.setNull(1, Types.INTEGER);
                }
                ps.setLong(2, now.toEpochMilli());
                ps.executeUpdate();
                try (ResultSet keys = ps.getGeneratedKeys()) {
                    keys.next();
                    id = keys.getLong(1);
                }
            }
            try (PreparedStatement ps = connection.prepareStatement("INSERT INTO write_paths (job, position, glob) VALUES (?, ?, ?)")) {
                for (int i = 0; i < writePaths.size(); i++) {
                    ps.setLong(1, id);
                    ps.setInt(2, i);
                    ps.setString(3, writePaths.get(i).text());
                    ps.addBatch();
                }
                ps.executeBatch();
            }
            JobId jobId = new JobId(id);
            append(jobId, new TrailEvent.Created(), now);
            return new Job(jobId, parent, new JobState.Live(), writePaths, Instant.ofEpochMilli(now.toEpochMilli()));
        });
    }

    /**
     * A delegated job gets part of its parent's grant, never more: each of its globs must lie
     * within one of the parent's ({@link WriteGlob#within}). A parent without write paths is
     * never narrowed, so anything lies within it.
     */
    private static void withinParent(Job parent, List<WriteGlob> writePaths) {
        if (parent.writePaths().isEmpty()) {
            return;
        }
        if (writePaths.isEmpty()) {
            throw refuse("a job delegated by job " + parent.id() + " needs write paths: one without them is never narrowed,"
                    + " which would give it more than its parent", "--write");
        }
        for (WriteGlob g : writePaths) {
            if (parent.writePaths().stream().noneMatch(g::within)) {
                String theirs = parent.writePaths().stream().map(WriteGlob::text).collect(java.util.stream.Collectors.joining(" "));
                throw refuse("--write '" + g.text() + "' does not lie within the write paths of parent job " + parent.id()
                        + " (" + theirs + "): a delegated job may be given part of its parent's grant, never more;"
                        + " name a path inside one of them (a wildcard is contained only by the same wildcard, '*' or '**')",
                        "--write");
            }
        }
    }

    /** The job, or empty when the store has no such row. */
    public synchronized Optional<Job> find(JobId id) {
        return read(() -> {
            try (PreparedStatement ps = connection.prepareStatement(
                    "SELECT id, parent, state, created_ms, ended_ms FROM jobs WHERE id = ?")) {
                ps.setLong(1, id.value());
                try (ResultSet rs = ps.executeQuery()) {
                    if (!rs.next()) {
                        return Optional.empty();
                    }
                    return Optional.of(row(rs, writePaths(List.of(id.value())).getOrDefault(id.value(), List.of())));
                }
            }
        });
    }

    /** Every job, oldest first. */
    public synchronized List<Job> list() {
        return read(() -> {
            Map<Long, List<WriteGlob>> paths = writePaths(null);
            List<Job> out = new ArrayList<>();
            try (Statement s = connection.createStatement();
                 ResultSet rs = s.executeQuery("SELECT id, parent, state, created_ms, ended_ms FROM jobs ORDER BY id")) {
                while (rs.next()) {
                    out.add(row(rs, paths.getOrDefault(rs.getLong(1), List.of())));
                }
            }
            return out;
        });
    }

    /**
     * Ends a live job.
     *
     * @throws SandboxException MGS2004 for an unknown job or one that already ended
     */
    public synchronized Job end(JobId id, boolean failed) {
        Instant now = clock.instant();
        return write(() -> {
            Job job = find(id).orElseThrow(() -> unknown(id, "JOB"));
            if (!job.live()) {
                throw refuse("job " + id + " already ended (" + job.state().label() + ")", "JOB");
            }
            String state = failed ? "failed" : "done";
            try (PreparedStatement ps = connection.prepareStatement("UPDATE jobs SET state = ?, ended_ms = ? WHERE id = ?")) {
                ps.setString(1, state);
                ps.setLong(2, now.toEpochMilli());
                ps.setLong(3, id.value());
                ps.executeUpdate();
            }
            append(id, new TrailEvent.Ended(state), now);
            Instant at = Instant.ofEpochMilli(now.toEpochMilli());
            return new Job(id, job.parent(), failed ? new JobState.Failed(at) : new JobState.Done(at), job.writePaths(),
                    job.created());
        });
    }

    /** Appends one event to a job's trail. */
    public synchronized TrailEntry record(JobId id, TrailEvent event) {
        Instant now = clock.instant();
        return write(() -> {
            find(id).orElseThrow(() -> unknown(id, "JOB"));
            long seq = append(id, event, now);
            return new TrailEntry(seq, id, Instant.ofEpochMilli(now.toEpochMilli()), event);
        });
    }

    /** A job's trail, oldest first. */
    public synchronized List<TrailEntry> trail(JobId id) {
        return read(() -> {
            List<TrailEntry> out = new ArrayList<>();
            try (PreparedStatement ps = connection.prepareStatement(
                    "SELECT seq, at_ms, kind, path, operation, code, layer, detail, run, status FROM trail WHERE job = ? ORDER BY seq")) {
                ps.setLong(1, id.value());
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        out.add(new TrailEntry(rs.getLong(1), id, Instant.ofEpochMilli(rs.getLong(2)), event(rs)));
                    }
                }
            }
            return out;
        });
    }

    private long append(JobId id, TrailEvent event, Instant at) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement(
                "INSERT INTO trail (job, at_ms, kind, path, operation, code, layer, detail, run, status)"
                        + " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                Statement.RETURN_GENERATED_KEYS)) {
            ps.setLong(1, id.value());
            ps.setLong(2, at.toEpochMilli());
            ps.setString(3, event.kind());
            String path = null;
            String operation = null;
            String code = null;
            String layer = null;
            String detail = null;
            String run = null;
            Integer status = null;
            if (event instanceof TrailEvent.Ended e) {
                detail = e.state();
            } else if (event instanceof TrailEvent.LeaseAcquired a) {
                path = a.checkout().toString();
            } else if (event instanceof TrailEvent.LeaseReleased r) {
                path = r.checkout().toString();
            } else if (event instanceof TrailEvent.SandboxDenial d) {
                path = d.path().toString();
                operation = d.operation().label();
                code = d.code().name();
                layer = d.layer().label();
                run = d.run().orElse(null);
                // The detail column is free on this row: the source goes there, no new column.
                detail = d.source().isEmpty() ? null : d.source();
            } else if (event instanceof TrailEvent.RunStarted r) {
                run = r.run();
                path = r.dir().toString();
                detail = r.command();
            } else if (event instanceof TrailEvent.RunEnded r) {
                run = r.run();
                status = r.status();
                detail = Long.toString(r.omitted());
            }
            ps.setString(4, path);
            ps.setString(5, operation);
            ps.setString(6, code);
            ps.setString(7, layer);
            ps.setString(8, detail);
            ps.setString(9, run);
            if (status == null) {
                ps.setNull(10, Types.INTEGER);
            } else {
                ps.setInt(10, status);
            }
            ps.executeUpdate();
            try (ResultSet keys = ps.getGeneratedKeys()) {
                keys.next();
                return keys.getLong(1);
            }
        }
    }

    private TrailEvent event(ResultSet rs) throws SQLException {
        String kind = rs.getString(3);
        String path = rs.getString(4);
        return switch (kind) {
            case "created" -> new TrailEvent.Created();
            case "ended" -> new TrailEvent.Ended(rs.getString(8));
            case "lease_acquired" -> new TrailEvent.LeaseAcquired(Path.of(path));
            case "lease_released" -> new TrailEvent.LeaseReleased(Path.of(path));
            case "sandbox_denial" -> new TrailEvent.SandboxDenial(Path.of(path),
                    Operation.valueOf(rs.getString(5).toUpperCase(java.util.Locale.ROOT)), Code.valueOf(rs.getString(6)),
                    Layer.valueOf(rs.getString(7).toUpperCase(java.util.Locale.ROOT)), Optional.ofNullable(rs.getString(9)),
                    Optional.ofNullable(rs.getString(8)).orElse(""));
            case "run_started" -> new TrailEvent.RunStarted(rs.getString(9), Path.of(path), rs.getString(8));
            case "run_ended" -> new TrailEvent.RunEnded(rs.getString(9), rs.getInt(10), parseLong(rs.getString(8)));
            default -> throw StoreErrors.refuse(file, "holds a trail row of unknown kind '" + kind + "'", null);
        };
    }

    private static long parseLong(String s) {
        try {
            return s == null ? 0 : Long.parseLong(s);
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    private Job row(ResultSet rs, List<WriteGlob> paths) throws SQLException {
        JobId id = new JobId(rs.getLong(1));
        long parent = rs.getLong(2);
        Optional<JobId> p = rs.wasNull() ? Optional.empty() : Optional.of(new JobId(parent));
        String stateText = rs.getString(3);
        Instant created = Instant.ofEpochMilli(rs.getLong(4));
        long ended = rs.getLong(5);
        boolean hasEnd = !rs.wasNull();
        JobState state = switch (stateText) {
            case "live" -> new JobState.Live();
            case "done" -> new JobState.Done(Instant.ofEpochMilli(ended));
            case "failed" -> new JobState.Failed(Instant.ofEpochMilli(ended));
            default -> throw StoreErrors.refuse(file, "holds job " + id + " in unknown state '" + stateText + "'", null);
        };
        if (hasEnd == (state instanceof JobState.Live)) {
            throw StoreErrors.refuse(file, "holds job " + id + " whose state and end time disagree", null);
        }
        return new Job(id, p, state, paths, created);
    }

    /** Write paths by job, validated again: a store edited by hand cannot smuggle in a bad glob. */
    private Map<Long, List<WriteGlob>> writePaths(List<Long> only) throws SQLException {
        String sql = "SELECT job, glob FROM write_paths" + (only == null ? "" : " WHERE job = " + only.get(0))
                + " ORDER BY job, position";
        Map<Long, List<WriteGlob>> out = new LinkedHashMap<>();
        try (Statement s = connection.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            while (rs.next()) {
                long job = rs.getLong(1);
                out.computeIfAbsent(job, k -> new ArrayList<>()).add(WriteGlob.parse(rs.getString(2), file + " job " + job));
            }
        }
        return out;
    }

    private SandboxException unknown(JobId id, String what) {
        return refuse("no job " + id + " in " + file, what);
    }

    private static SandboxException refuse(String message, String source) {
        return new SandboxException(Diagnostic.of(Code.MGS2004, message, source, Operation.NONE, Layer.POLICY, source));
    }

    private interface Body<T> {
        T run() throws SQLException;
    }

    private <T> T read(Body<T> body) {
        try {
            return body.run();
        } catch (SQLException e) {
            throw StoreErrors.of(file, e, busyTimeoutMs);
        }
    }

    private <T> T write(Body<T> body) {
        try {
            connection.setAutoCommit(false);
            try {
                T out = body.run();
                connection.commit();
                return out;
            } catch (SQLException | RuntimeException e) {
                connection.rollback();
                throw e;
            } finally {
                connection.setAutoCommit(true);
            }
        } catch (SQLException e) {
            throw StoreErrors.of(file, e, busyTimeoutMs);
        }
    }

    @Override
    public synchronized void close() {
        closeQuietly(connection);
    }

    private static void closeQuietly(Connection c) {
        if (c != null) {
            try {
                c.close();
            } catch (SQLException e) {
                // nothing left to report: the store is being given up
            }
        }
    }
}
