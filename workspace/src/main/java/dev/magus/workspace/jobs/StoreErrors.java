package dev.magus.workspace.jobs;

import dev.magus.events.Code;
import dev.magus.events.Diagnostic;
import dev.magus.events.Layer;
import dev.magus.events.Operation;
import dev.magus.events.SandboxException;
import java.nio.file.Path;
import java.sql.SQLException;
import org.sqlite.SQLiteErrorCode;
import org.sqlite.SQLiteException;

/**
 * Every way the job store can fail, as an MGS2004 naming the file. A store that cannot be
 * read refuses the run (fail closed): the caller never takes "no lease" from a store it could
 * not read.
 */
final class StoreErrors {
    private StoreErrors() {
    }

    static SandboxException of(Path db, SQLException e, int busyTimeoutMs) {
        String why = switch (primary(e)) {
            case 26 /* SQLITE_NOTADB */, 11 /* SQLITE_CORRUPT */ ->
                    "is not a readable job store (corrupt, truncated or not an SQLite database); move it aside"
                            + " and magus starts a new one";
            case 5 /* SQLITE_BUSY */, 6 /* SQLITE_LOCKED */ ->
                    "is locked by another process (waited " + busyTimeoutMs + " ms); try again when it is done";
            case 14 /* SQLITE_CANTOPEN */, 3 /* SQLITE_PERM */, 23 /* SQLITE_AUTH */ ->
                    "cannot be opened (check that it and its directory are yours and readable)";
            case 8 /* SQLITE_READONLY */ -> "cannot be written (read-only file or directory)";
            case 10 /* SQLITE_IOERR */ -> "cannot be read or written (I/O error)";
            case 13 /* SQLITE_FULL */ -> "cannot grow: the disk is full";
            default -> "cannot be used";
        };
        return refuse(db, why + ": " + firstLine(e.getMessage()), e);
    }

    static SandboxException refuse(Path db, String why, Throwable cause) {
        Diagnostic d = Diagnostic.of(Code.MGS2004, "job store " + db + " " + why, db.toString(), Operation.NONE,
                Layer.POLICY, db.toString());
        return cause == null ? new SandboxException(d) : new SandboxException(d, cause);
    }

    private static int primary(SQLException e) {
        if (e instanceof SQLiteException s && s.getResultCode() != null && s.getResultCode() != SQLiteErrorCode.UNKNOWN_ERROR) {
            return s.getResultCode().code & 0xff;
        }
        return e.getErrorCode() & 0xff;
    }

    private static String firstLine(String s) {
        if (s == null) {
            return "no detail";
        }
        int nl = s.indexOf('\n');
        return nl < 0 ? s : s.substring(0, nl);
    }
}
