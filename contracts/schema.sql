-- contracts/schema.sql - the results database (results/<sweep-id>/results.db):
-- the one definition of its tables.
--
-- build/bin/sweep creates a database from exactly this text; build/bin/analyze
-- and every test fixture that builds a results database use the same text
-- (both programs embed it at build time: scripts/embed.sh generates
-- $(BUILD)/gen/schema_sql.h).  docs/FORMATS.md explains the core tables,
-- docs/HARNESS.md every column the harness adds.
--
-- Comments stay between statements, never inside one: SQLite stores each
-- statement's text in the database, and a sweep's results.db must not change
-- when only a comment here does.  Adding a column: add it at the end of its
-- table (readers find columns by name), then store it in harness/sw_db.c and
-- read it where it is needed (docs/ARCHITECTURE.md, "Adding a per-run metric").

-- meta: key/value facts about the sweep (host, cpu, revision, seeds, plan,
-- versions, status...).
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT);

-- cells: one per combination of workload and sampling setting.  kind is
-- 'baseline', 'alloc', 'time' or 'alloc+time'; alloc_mode and time_clock are
-- words of runtime/sgc_modes.h ('' when that sampler is off); alloc_period is
-- 0 and time_hz 0 when off.  args: the workload's extra arguments; depth: the
-- --depth of deepstack's depth cells (NULL otherwise).  backend: how the
-- cell is measured, 'native' (timed) or 'sim' (counted under valgrind's
-- cachegrind, docs/HARNESS.md "The simulated part").  time_mode: the time
-- sampler's mode of a time-sampling cell, 'signal' or 'thread' (a word of
-- runtime/sgc_modes.h), '' without time sampling or for another system's
-- command workload; NULL (a sweep from before the column): signal, or the
-- --env SGC_TIME_MODE its runs were given (docs/HARNESS.md "The time
-- sampler's mode").
CREATE TABLE cells(
  cell_id INTEGER PRIMARY KEY,
  workload TEXT NOT NULL,
  kind TEXT NOT NULL,
  alloc_period INTEGER NOT NULL,
  alloc_mode TEXT NOT NULL,
  time_hz INTEGER NOT NULL,
  time_clock TEXT NOT NULL,
  size INTEGER NOT NULL,
  label TEXT NOT NULL UNIQUE,
  args TEXT NOT NULL DEFAULT '',
  depth INTEGER,
  backend TEXT NOT NULL DEFAULT 'native',
  time_mode TEXT);

-- runs: one per finished run.  round <= 0 is a warm-up (never analysed);
-- status 'ok' or 'failed' (failure says why).  The columns from sgc_seed on
-- are the harness's own (docs/HARNESS.md).  The blocked design: the run's
-- block, its position there (1, 2) and its role (1 = the compared run, 0 =
-- the baseline run); NULL outside blocks.  Then the noise covariates over
-- the run (docs/HARNESS.md).  node: the host name of the machine the run ran
-- on (a sharded sweep's runs come from several, docs/HARNESS.md "Sharding").
-- replicate: the replicate the run belongs to (sweep --replicates K: 0 ..
-- K-1, each with its own seeds, schedule and block order); NULL in a sweep
-- of one replicate (docs/STATISTICS.md, "Levels").
CREATE TABLE runs(
  run_id INTEGER PRIMARY KEY,
  cell_id INTEGER NOT NULL REFERENCES cells,
  round INTEGER NOT NULL,
  seq INTEGER NOT NULL,
  status TEXT NOT NULL,
  failure TEXT,
  wall_ns INTEGER, user_ns INTEGER, sys_ns INTEGER, maxrss_kb INTEGER,
  sgc_seed INTEGER,
  cpu INTEGER,
  overhead_ns INTEGER,
  exit_code INTEGER,
  term_signal INTEGER,
  checksum TEXT,
  output_tail TEXT,
  profile_bytes INTEGER,
  counter_errors TEXT,
  started_ns INTEGER,
  block INTEGER, block_pos INTEGER, block_role INTEGER,
  steal_ns INTEGER, other_busy_ns INTEGER, nivcsw INTEGER, minflt INTEGER, loadavg1 REAL,
  node TEXT,
  replicate INTEGER,
  UNIQUE(seq));

-- run_stats: every key of the run's stats record (runtime/sgc_stats_keys.h).
CREATE TABLE run_stats(
  run_id INTEGER NOT NULL REFERENCES runs, key TEXT NOT NULL, value TEXT NOT NULL,
  PRIMARY KEY(run_id, key));

-- run_counters: one row per supported counter of a run; scaled is
-- raw * time_enabled / time_running.
CREATE TABLE run_counters(
  run_id INTEGER NOT NULL REFERENCES runs, event TEXT NOT NULL,
  raw INTEGER NOT NULL, time_enabled INTEGER NOT NULL, time_running INTEGER NOT NULL,
  scaled REAL NOT NULL,
  PRIMARY KEY(run_id, event));

-- events: the counters asked for, and whether this machine supports each.
CREATE TABLE events(event TEXT PRIMARY KEY, supported INTEGER NOT NULL, reason TEXT,
  encoding TEXT);

-- schedule: every planned run, stored before the first one; the missing runs
-- of an interrupted sweep are the rows without a runs row.
CREATE TABLE schedule(
  seq INTEGER PRIMARY KEY,
  cell_id INTEGER NOT NULL REFERENCES cells,
  round INTEGER NOT NULL,
  block INTEGER, block_pos INTEGER, block_role INTEGER,
  replicate INTEGER);

-- calibration: each workload's --size and how it was found; one row per
-- probe run in calibration_probes.
CREATE TABLE calibration(
  workload TEXT PRIMARY KEY,
  size INTEGER NOT NULL,
  seconds REAL NOT NULL,
  checksum TEXT,
  method TEXT NOT NULL,
  probes INTEGER NOT NULL,
  status TEXT NOT NULL,
  failure TEXT);
CREATE TABLE calibration_probes(
  workload TEXT NOT NULL, probe INTEGER NOT NULL, size INTEGER NOT NULL,
  wall_ns INTEGER NOT NULL, cpu_ns INTEGER NOT NULL, status TEXT NOT NULL,
  PRIMARY KEY(workload, probe));

-- segments: the in-process design's segment series of each run
-- (docs/FORMATS.md).  A field the series lists as unmeasured (another
-- runtime's writer that cannot measure it) is NULL, never 0; the fields
-- every writer measures are NOT NULL.  switch_ns: the series' optional
-- field (NULL when it has none); system: its system line ('freecheck' when
-- it has none); cpu_clock: 'thread' or 'process', the clock of cpu_ns (both
-- NULL in databases written before they were added).
CREATE TABLE segments(
  run_id INTEGER NOT NULL REFERENCES runs, idx INTEGER NOT NULL,
  block INTEGER NOT NULL, pos INTEGER NOT NULL, kind TEXT NOT NULL, on_ INTEGER NOT NULL,
  end_ TEXT NOT NULL, cpu_ns INTEGER NOT NULL, wall_ns INTEGER, bytes INTEGER NOT NULL,
  iterations INTEGER, alloc_samples INTEGER, alloc_points INTEGER,
  sampled_bytes INTEGER, time_samples INTEGER, minor INTEGER,
  major INTEGER, gc_ns INTEGER, major_cpu_ns INTEGER,
  switch_ns INTEGER, system TEXT, cpu_clock TEXT,
  PRIMARY KEY(run_id, idx));

CREATE INDEX runs_seq ON runs(seq);

-- sim_native: the simulated part's native rate: the median native CPU and
-- wall time of `runs` baseline runs of a workload at its simulated size
-- (key sim:<workload>).
CREATE TABLE sim_native(
  workload TEXT PRIMARY KEY, size INTEGER NOT NULL, runs INTEGER NOT NULL,
  cpu_ns INTEGER NOT NULL, wall_ns INTEGER NOT NULL);

-- shard_meta: a merged sweep (sweep --merge) keeps every shard's own meta
-- table here, shard = its K of --shard K/N; empty in other sweeps.
CREATE TABLE shard_meta(
  shard INTEGER NOT NULL, key TEXT NOT NULL, value TEXT,
  PRIMARY KEY(shard, key));
