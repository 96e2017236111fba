-- depth.sql - a synthetic results.db (tables of docs/FORMATS.md) with deepstack run at three stack depths, for the figure-5 path through build/bin/analyze.
-- The numbers are made up by formula, not measured.  The harness does not
-- record depths yet; analyze reads them from a cells "args" column, as here.
-- Per depth d in 8, 32, 128: a baseline, an allocation cell (fixed, 64K) and
-- a time cell (1000 Hz), 5 measured rounds each.  Baseline wall time
-- 100 ms + 10 us * ((3 * round) % 5); an allocation run takes 1000 samples at
-- (0.5 + d / 64) us each, a time run 100 samples at (3 + d / 100) us each.
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE cells(
  cell_id INTEGER PRIMARY KEY, workload TEXT NOT NULL, kind TEXT NOT NULL,
  alloc_period INTEGER NOT NULL, alloc_mode TEXT NOT NULL, time_hz INTEGER NOT NULL,
  time_clock TEXT NOT NULL, size INTEGER NOT NULL, label TEXT NOT NULL UNIQUE, args TEXT);
CREATE TABLE runs(
  run_id INTEGER PRIMARY KEY, cell_id INTEGER NOT NULL REFERENCES cells,
  round INTEGER NOT NULL, seq INTEGER NOT NULL, status TEXT NOT NULL, failure TEXT,
  wall_ns INTEGER, user_ns INTEGER, sys_ns INTEGER, maxrss_kb INTEGER,
  UNIQUE(cell_id, round));
CREATE TABLE run_stats(
  run_id INTEGER NOT NULL REFERENCES runs, key TEXT NOT NULL, value TEXT NOT NULL,
  PRIMARY KEY(run_id, key));
CREATE TABLE run_counters(
  run_id INTEGER NOT NULL REFERENCES runs, event TEXT NOT NULL,
  raw INTEGER NOT NULL, time_enabled INTEGER NOT NULL, time_running INTEGER NOT NULL,
  scaled REAL NOT NULL, PRIMARY KEY(run_id, event));
CREATE TABLE events(event TEXT PRIMARY KEY, supported INTEGER NOT NULL, reason TEXT);

INSERT INTO meta VALUES ('host', 'synthetic'), ('plan', 'deepstack at depths 8, 32, 128 (synthetic)');
CREATE TEMP TABLE d(depth INTEGER, base INTEGER);
INSERT INTO d VALUES (8, 0), (32, 3), (128, 6);
INSERT INTO cells SELECT base + 1, 'deepstack', 'baseline', 0, '', 0, '', 10, 'd' || depth || '/baseline', '--depth ' || depth FROM d;
INSERT INTO cells SELECT base + 2, 'deepstack', 'alloc', 65536, 'fixed', 0, '', 10, 'd' || depth || '/alloc-fixed-64K', '--depth=' || depth FROM d;
INSERT INTO cells SELECT base + 3, 'deepstack', 'time', 0, '', 1000, 'wall', 10, 'd' || depth || '/time-1000Hz', '--depth ' || depth FROM d;
WITH RECURSIVE r(k) AS (SELECT 1 UNION ALL SELECT k + 1 FROM r WHERE k < 5)
INSERT INTO runs(run_id, cell_id, round, seq, status, wall_ns, user_ns, sys_ns, maxrss_kb)
SELECT 100 * c.cell_id + k, c.cell_id, k, 20 * k + c.cell_id, 'ok',
       100000000 + 10000 * ((3 * k) % 5)
       + CASE c.kind WHEN 'alloc' THEN CAST(1000 * (500 + 1000 * d.depth / 64.0) AS INTEGER)
                     WHEN 'time' THEN CAST(100 * (3000 + 1000 * d.depth / 100.0) AS INTEGER) ELSE 0 END,
       90000000, 1000000, 5000
FROM r, cells c JOIN d ON c.cell_id BETWEEN d.base + 1 AND d.base + 3;
INSERT INTO run_stats SELECT r.run_id, 'alloc_samples', CASE c.kind WHEN 'alloc' THEN 1000 ELSE 0 END FROM runs r JOIN cells c USING (cell_id);
INSERT INTO run_stats SELECT r.run_id, 'alloc_sample_points', CASE c.kind WHEN 'alloc' THEN 1000 ELSE 0 END FROM runs r JOIN cells c USING (cell_id);
INSERT INTO run_stats SELECT r.run_id, 'sampled_bytes', CASE c.kind WHEN 'alloc' THEN 1000 * 65536 + 100 ELSE 0 END FROM runs r JOIN cells c USING (cell_id);
INSERT INTO run_stats SELECT r.run_id, 'alloc_period', c.alloc_period FROM runs r JOIN cells c USING (cell_id);
INSERT INTO run_stats SELECT r.run_id, 'time_samples', CASE c.kind WHEN 'time' THEN 100 ELSE 0 END FROM runs r JOIN cells c USING (cell_id);
