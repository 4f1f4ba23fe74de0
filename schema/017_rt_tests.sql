-- SPDX-License-Identifier: GPL-2.0-or-later
--
-- Tools other than cyclictest (testcases' measurement.tool).  A histogram
-- says what it measures: 'latency' (cyclictest's wakeup latency),
-- 'timerlat-thread' and 'timerlat-irq' (rtla timerlat hist: two per CPU),
-- 'osnoise' (rtla osnoise hist).  Thread numbers stay unique within a run
-- across metrics; the verdicts use the metric of a run's thread 0.  A tool
-- without a histogram (signaltest, pmqtest, cyclicdeadline, pi_stress)
-- stores its pass/fail with counts in runs.results.
ALTER TABLE histograms ADD COLUMN metric text NOT NULL DEFAULT 'latency'
	CHECK (metric ~ '^[a-z][a-z0-9-]*$' AND length(metric) <= 31);
ALTER TABLE runs ADD COLUMN results jsonb;
