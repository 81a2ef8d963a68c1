'use strict';
/**
 * The V8 heap of `enrich import` (bin/enrich.js runs it in a worker thread with these limits, and
 * bench:import measures the import the same way). An import allocates a parsed record, its stored
 * text and its typed rows for every line, all short-lived: with V8's default young generation a
 * 10,000-person import spends ~16 % of its time in the garbage collector (`--cpu-prof`), promoting
 * records that die a moment later. A young generation of up to 192 MB (V8 grows it as needed) keeps
 * them young: measured (bench:import, 10,000 persons, 2026-11-26, ratios to the COPY ceiling of the
 * same run), a full re-import at a new fetched_at 0.36-0.41 with node's defaults, 0.49-0.50 with
 * 96 MB, 0.56-0.70 with 192 MB; the initial load 0.60-0.74, 0.66-0.77, 0.71-0.74. The heap's limits
 * cannot change once a process runs, and a child process would outlive a `kill -9` of its parent:
 * a worker thread dies with the process.
 */
module.exports = { IMPORT_RESOURCE_LIMITS: { maxYoungGenerationSizeMb: 192 } };
