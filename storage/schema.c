/* schema.c: the schema, as an append-only list of migrations. Never edit a released entry:
 * add a new one, so that every existing file upgrades the same way. */
#include "storage/schema.h"

#include "basic/macro.h"

static const char schema_v1[] =
        /* Experiments: the definition as stored (canonical JSON), newest-first paging by rowid. */
        "CREATE TABLE experiments ("
        "  id TEXT PRIMARY KEY,"
        "  name TEXT NOT NULL,"
        "  status TEXT NOT NULL CHECK (status IN"
        "    ('queued','running','succeeded','partial','failed','cancelled')),"
        "  definition TEXT NOT NULL,"
        "  run_order TEXT NOT NULL,"
        "  seed INTEGER,"
        "  warnings TEXT NOT NULL DEFAULT '[]',"
        "  cancel_requested INTEGER NOT NULL DEFAULT 0,"
        "  created_wall_ns INTEGER NOT NULL,"
        "  finished_wall_ns INTEGER"
        ");"
        "CREATE INDEX experiments_by_status ON experiments(status);"
        "CREATE TABLE idempotency_keys ("
        "  key TEXT PRIMARY KEY,"
        "  body_sha256 TEXT NOT NULL,"
        "  experiment_id TEXT NOT NULL REFERENCES experiments(id) ON DELETE CASCADE,"
        "  created_wall_ns INTEGER NOT NULL"
        ") WITHOUT ROWID;"
        "CREATE TABLE cells ("
        "  experiment_id TEXT NOT NULL REFERENCES experiments(id) ON DELETE CASCADE,"
        "  idx INTEGER NOT NULL,"
        "  name TEXT NOT NULL,"
        "  definition TEXT NOT NULL,"
        "  PRIMARY KEY (experiment_id, idx),"
        "  UNIQUE (experiment_id, name)"
        ") WITHOUT ROWID;"
        /* Runs: one per cell and iteration, in the order they are to run. */
        "CREATE TABLE runs ("
        "  id TEXT PRIMARY KEY,"
        "  experiment_id TEXT NOT NULL REFERENCES experiments(id) ON DELETE CASCADE,"
        "  position INTEGER NOT NULL,"
        "  cell_idx INTEGER NOT NULL,"
        "  iteration INTEGER NOT NULL,"
        "  state TEXT NOT NULL CHECK (state IN ('queued','preparing','starting','warmup',"
        "    'measuring','collecting','succeeded','failed','cancelled','interrupted')),"
        "  reason TEXT,"
        "  message TEXT,"
        "  sut_slice TEXT,"
        "  load_slice TEXT,"
        "  exit_status TEXT,"
        "  metrics TEXT,"
        "  warnings TEXT NOT NULL DEFAULT '[]',"
        "  measure_start_ns INTEGER,"
        "  UNIQUE (experiment_id, position),"
        "  FOREIGN KEY (experiment_id, cell_idx) REFERENCES cells(experiment_id, idx)"
        ");"
        "CREATE INDEX runs_by_state ON runs(state);"
        /* Every state transition, with both clocks. */
        "CREATE TABLE run_events ("
        "  run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
        "  seq INTEGER NOT NULL,"
        "  state TEXT NOT NULL,"
        "  wall_ns INTEGER NOT NULL,"
        "  mono_ns INTEGER NOT NULL,"
        "  message TEXT,"
        "  PRIMARY KEY (run_id, seq)"
        ") WITHOUT ROWID;"
        /* Numeric headline figures, flattened ("latency_us.scheduled.p99"), for reports. */
        "CREATE TABLE run_metrics ("
        "  run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
        "  name TEXT NOT NULL,"
        "  value REAL,"
        "  PRIMARY KEY (run_id, name)"
        ") WITHOUT ROWID;"
        /* Per-request records, sorted by scheduled time, in blocks of raw timeline records so
         * that ingest and streaming move millions of records per second; seq = index of the
         * block's first record, first/last scheduled_ns let time windows skip blocks. */
        "CREATE TABLE requests ("
        "  run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
        "  first_seq INTEGER NOT NULL,"
        "  count INTEGER NOT NULL,"
        "  first_scheduled_ns INTEGER NOT NULL,"
        "  last_scheduled_ns INTEGER NOT NULL,"
        "  records BLOB NOT NULL,"
        "  PRIMARY KEY (run_id, first_seq)"
        ") WITHOUT ROWID;"
        "CREATE TABLE gc_events ("
        "  run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
        "  seq INTEGER NOT NULL,"
        "  start_ns INTEGER NOT NULL,"
        "  duration_ns INTEGER NOT NULL,"
        "  kind TEXT NOT NULL,"
        "  cause TEXT,"
        "  heap_before INTEGER,"
        "  heap_after INTEGER,"
        "  heap_capacity INTEGER,"
        "  gc_id INTEGER,"
        "  collector TEXT,"
        "  PRIMARY KEY (run_id, seq)"
        ") WITHOUT ROWID;"
        "CREATE TABLE samples ("
        "  run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
        "  t_ms INTEGER NOT NULL,"
        "  data TEXT NOT NULL,"
        "  PRIMARY KEY (run_id, t_ms)"
        ") WITHOUT ROWID;"
        "CREATE TABLE host_snapshots ("
        "  id INTEGER PRIMARY KEY,"
        "  run_id TEXT REFERENCES runs(id) ON DELETE CASCADE,"
        "  taken_wall_ns INTEGER NOT NULL,"
        "  data TEXT NOT NULL"
        ");";

/* Capacity searches: each step of a run (its rate, whether it met the SLAs, its figures as JSON)
 * and the step's own per-request records, in blocks as in requests. */
static const char schema_v2[] =
        "CREATE TABLE run_steps ("
        "  run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
        "  step INTEGER NOT NULL,"
        "  rate REAL NOT NULL,"
        "  met INTEGER NOT NULL,"
        "  measure_start_ns INTEGER,"
        "  data TEXT NOT NULL,"
        "  PRIMARY KEY (run_id, step)"
        ") WITHOUT ROWID;"
        "CREATE TABLE step_requests ("
        "  run_id TEXT NOT NULL,"
        "  step INTEGER NOT NULL,"
        "  first_seq INTEGER NOT NULL,"
        "  count INTEGER NOT NULL,"
        "  first_scheduled_ns INTEGER NOT NULL,"
        "  last_scheduled_ns INTEGER NOT NULL,"
        "  records BLOB NOT NULL,"
        "  PRIMARY KEY (run_id, step, first_seq),"
        "  FOREIGN KEY (run_id, step) REFERENCES run_steps(run_id, step) ON DELETE CASCADE"
        ") WITHOUT ROWID;";

/* Loads this daemon runs for another host's experiment (issue 25): the injector's definition
 * as validated (canonical JSON), the coordinator's identity, the start on this host's
 * CLOCK_MONOTONIC, and the lease the coordinator renews (lease_expires_ns, same clock). */
static const char schema_v3[] =
        "CREATE TABLE loads ("
        "  id TEXT PRIMARY KEY,"
        "  state TEXT NOT NULL CHECK (state IN ('queued','running','succeeded','failed','cancelled',"
        "    'expired','interrupted')),"
        "  reason TEXT,"
        "  message TEXT,"
        "  coordinator TEXT NOT NULL,"
        "  coordinator_run TEXT NOT NULL,"
        "  host TEXT NOT NULL,"
        "  cpus TEXT NOT NULL,"
        "  definition TEXT NOT NULL,"
        "  phase_ns INTEGER NOT NULL,"
        "  seed INTEGER NOT NULL,"
        "  start_at_ns INTEGER NOT NULL,"
        "  lease_s INTEGER NOT NULL,"
        "  lease_expires_ns INTEGER NOT NULL,"
        "  cancel_requested INTEGER NOT NULL DEFAULT 0,"
        "  slice TEXT,"
        "  summary TEXT,"
        "  created_wall_ns INTEGER NOT NULL,"
        "  finished_wall_ns INTEGER"
        ");"
        "CREATE INDEX loads_by_state ON loads(state);";

/* Imported experiments (POST /v1/imports): where each came from, so that GET answers its origin and
 * a second import of the same experiment stores nothing. The experiment keeps its id. */
static const char schema_v4[] =
        "CREATE TABLE imports ("
        "  experiment_id TEXT PRIMARY KEY REFERENCES experiments(id) ON DELETE CASCADE,"
        "  origin_host TEXT NOT NULL,"
        "  origin_id TEXT NOT NULL,"
        "  bundle_sha256 TEXT NOT NULL,"
        "  imported_wall_ns INTEGER NOT NULL,"
        "  UNIQUE (origin_host, origin_id)"
        ") WITHOUT ROWID;";

/* The experiments' labels, one row per key and value, for the list's label filter: the newest
 * experiments with a label are read through (key, value, experiment_rowid), not by parsing every
 * definition ever stored (a rare label scanned the whole table for one page). Filled from the
 * definitions already stored. And the idempotency keys by age. */
static const char schema_v5[] =
        "CREATE TABLE experiment_labels ("
        "  key TEXT NOT NULL,"
        "  value TEXT NOT NULL,"
        "  experiment_rowid INTEGER NOT NULL,"
        "  experiment_id TEXT NOT NULL REFERENCES experiments(id) ON DELETE CASCADE,"
        "  PRIMARY KEY (key, value, experiment_rowid)"
        ") WITHOUT ROWID;"
        "INSERT INTO experiment_labels(key, value, experiment_rowid, experiment_id)"
        "  SELECT l.key, l.value, e.rowid, e.id FROM experiments e, json_each(e.definition, '$.labels') l;"
        /* Every POST with an Idempotency-Key prunes the keys older than a week, in its write
         * transaction: through this index, not a scan of a week's keys. */
        "CREATE INDEX idempotency_keys_by_age ON idempotency_keys(created_wall_ns);";

/* The runs counted by state, so that the queue's limit (every POST, in its write transaction) and
 * the loop's status read a few rows instead of counting every queued run (a POST's cost grew with
 * the queue, issue 33). Filled from the runs already stored. A state's change and a run's removal
 * (a transition, a cancel, the restart's interruption, an UPDATE by hand, a deleted experiment's
 * cascade) are counted by triggers, in the statement that makes them; a run's insert by the code
 * that inserts (experiments_create(), an import's imports_record()), in its transaction: a
 * trigger there would have made every insert into runs write two b-trees, and SQLite keeps a
 * statement journal of the pages of such a statement (four 16 KiB pages, just past its 64 KiB in
 * memory: a temporary file created, written and unlinked for every run, a fifth of a POST's CPU).
 * Runs inserted by hand are not counted. Runs are never written with INSERT OR REPLACE: the rows
 * a replace deletes fire no trigger (recursive_triggers is off). And the runs' state index only
 * for the runs in progress (the restart's look for them): every queued run written into it cost
 * each POST a page of the WAL, and its only other readers, a cancel's and the counts', chose it
 * over the experiment's runs and read the whole queue. */
static const char schema_v6[] =
        "CREATE TABLE run_state_counts ("
        "  state TEXT PRIMARY KEY,"
        "  runs INTEGER NOT NULL"
        ") WITHOUT ROWID;"
        "INSERT INTO run_state_counts(state, runs)"
        "  SELECT s.column1, (SELECT count(*) FROM runs WHERE state = s.column1) FROM (VALUES ('queued'),"
        "    ('preparing'), ('starting'), ('warmup'), ('measuring'), ('collecting'), ('succeeded'), ('failed'),"
        "    ('cancelled'), ('interrupted')) s;"
        "CREATE TRIGGER run_state_counts_delete AFTER DELETE ON runs BEGIN"
        "  UPDATE run_state_counts SET runs = runs - 1 WHERE state = OLD.state;"
        " END;"
        "CREATE TRIGGER run_state_counts_update AFTER UPDATE OF state ON runs WHEN OLD.state IS NOT NEW.state BEGIN"
        "  UPDATE run_state_counts SET runs = runs - 1 WHERE state = OLD.state;"
        "  UPDATE run_state_counts SET runs = runs + 1 WHERE state = NEW.state;"
        " END;"
        "DROP INDEX runs_by_state;"
        "CREATE INDEX runs_active ON runs(state)"
        "  WHERE state IN ('preparing','starting','warmup','measuring','collecting');";

/* Bisections (issue 38): a change between two versions followed to the first version that has
 * it, one experiment a step. A step names its experiment without a foreign key: deleting that
 * experiment keeps the bisection's record of what the step decided. lo and hi are the range
 * still open (indexes into the request's versions). */
static const char schema_v7[] =
        "CREATE TABLE bisections ("
        "  id TEXT PRIMARY KEY,"
        "  name TEXT NOT NULL,"
        "  created_wall_ns INTEGER NOT NULL,"
        "  finished_wall_ns INTEGER,"
        "  status TEXT NOT NULL CHECK (status IN ('queued','running','succeeded','failed','cancelled')),"
        "  request TEXT NOT NULL CHECK (json_valid(request)),"
        "  n_versions INTEGER NOT NULL CHECK (n_versions >= 2),"
        "  lo INTEGER NOT NULL CHECK (lo >= 0),"
        "  hi INTEGER NOT NULL CHECK (hi > lo AND hi < n_versions),"
        "  outcome TEXT CHECK (outcome IS NULL OR outcome IN ('found','no_change','undecided')),"
        "  message TEXT"
        ");"
        "CREATE INDEX bisections_open ON bisections(status) WHERE status IN ('queued','running');"
        "CREATE TABLE bisection_steps ("
        "  bisection_id TEXT NOT NULL REFERENCES bisections(id) ON DELETE CASCADE,"
        "  step INTEGER NOT NULL CHECK (step >= 0),"
        "  lo INTEGER NOT NULL,"
        "  mid INTEGER NOT NULL CHECK (mid > lo),"
        "  attempt INTEGER NOT NULL CHECK (attempt >= 0),"
        "  experiment_id TEXT NOT NULL,"
        "  decision TEXT CHECK (decision IS NULL OR decision IN ('different','equivalent','undecided','failed')),"
        "  ratio REAL, ci_low REAL, ci_high REAL,"
        "  PRIMARY KEY (bisection_id, step)"
        ") WITHOUT ROWID;";

static const struct migration migrations[] = {
        { "initial schema", schema_v1 },
        { "capacity search steps", schema_v2 },
        { "peer loads", schema_v3 },
        { "imported experiments", schema_v4 },
        { "experiment labels, idempotency keys by age", schema_v5 },
        { "runs counted by state, the state index of runs in progress only", schema_v6 },
        { "bisections", schema_v7 },
};

size_t schema_migrations(const struct migration **ret) {
        *ret = migrations;
        return ELEMENTSOF(migrations);
}
