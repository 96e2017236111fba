-- depth.sql - rows for a synthetic results.db with deepstack run at three stack depths, for the figure-5 path through build/bin/analyze.
-- Loaded after contracts/schema.sql (the tables the harness creates).
-- The numbers are made up by formula, not measured.  The depth is in the
-- cells' depth column, as the harness records it, and in args.
-- Per depth d in 8, 32, 128: a baseline, an allocation cell (fixed, 64K) and
-- a time cell (1000 Hz), 5 measured rounds each.  Baseline wall time
-- 100 ms + 10 us * ((3 * round) % 5); an allocation run takes 1000 samples at
-- (0.5 + d / 64) us each, a time run 100 samples at (3 + d / 100) us each.
INSERT INTO meta VALUES ('host', 'synthetic'), ('plan', 'deepstack at depths 8, 32, 128 (synthetic)');
CREATE TEMP TABLE d(depth INTEGER, base INTEGER);
INSERT INTO d VALUES (8, 0), (32, 3), (128, 6);
INSERT INTO cells(cell_id, workload, kind, alloc_period, alloc_mode, time_hz, time_clock, size, label, args, depth) SELECT base + 1, 'deepstack', 'baseline', 0, '', 0, '', 10, 'd' || depth || '/baseline', '--depth ' || depth, depth FROM d;
INSERT INTO cells(cell_id, workload, kind, alloc_period, alloc_mode, time_hz, time_clock, size, label, args, depth) SELECT base + 2, 'deepstack', 'alloc', 65536, 'fixed', 0, '', 10, 'd' || depth || '/alloc-fixed-64K', '--depth=' || depth, depth FROM d;
INSERT INTO cells(cell_id, workload, kind, alloc_period, alloc_mode, time_hz, time_clock, size, label, args, depth) SELECT base + 3, 'deepstack', 'time', 0, '', 1000, 'wall', 10, 'd' || depth || '/time-1000Hz', '--depth ' || depth, depth FROM d;
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
