package dev.magus.workspace.jobs;

import java.util.List;

/**
 * The job store's schema, as numbered migrations. {@code PRAGMA user_version} holds the number
 * of the last one applied; each runs once, in order, inside the transaction that opens the
 * store, so a store is always at one version. Never edit a migration that has shipped: add one.
 */
final class Schema {
    private Schema() {
    }

    /** One step: the statements that take a store from {@code version - 1} to {@code version}. */
    record Migration(int version, List<String> statements) {
    }

    static final List<Migration> MIGRATIONS = List.of(
            new Migration(1, List.of(
                    """
                    CREATE TABLE jobs (
                      id         INTEGER PRIMARY KEY AUTOINCREMENT,
                      parent     INTEGER REFERENCES jobs(id),
                      state      TEXT    NOT NULL CHECK (state IN ('live', 'done', 'failed')),
                      created_ms INTEGER NOT NULL,
                      ended_ms   INTEGER,
                      CHECK ((state = 'live') = (ended_ms IS NULL))
                    )""",
                    """
                    CREATE TABLE write_paths (
                      job      INTEGER NOT NULL REFERENCES jobs(id),
                      position INTEGER NOT NULL,
                      glob     TEXT    NOT NULL,
                      PRIMARY KEY (job, position)
                    )""",
                    """
                    CREATE TABLE trail (
                      seq       INTEGER PRIMARY KEY AUTOINCREMENT,
                      job       INTEGER NOT NULL REFERENCES jobs(id),
                      at_ms     INTEGER NOT NULL,
                      kind      TEXT    NOT NULL,
                      path      TEXT,
                      operation TEXT,
                      code      TEXT,
                      layer     TEXT,
                      detail    TEXT
                    )""",
                    "CREATE INDEX trail_by_job ON trail(job, seq)")),
            // Runs write their own rows: which run (its id) a row belongs to, and how it ended.
            new Migration(2, List.of(
                    "ALTER TABLE trail ADD COLUMN run TEXT",
                    "ALTER TABLE trail ADD COLUMN status INTEGER")));

    /** The newest version this magus knows; a store at a higher one is refused, never rewritten. */
    static final int LATEST = MIGRATIONS.get(MIGRATIONS.size() - 1).version();
}
