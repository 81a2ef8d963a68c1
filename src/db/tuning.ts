/**
 * The settings of the embedded PostgreSQL, from the machine it runs on (issue 14). PostgreSQL's
 * own defaults are sized for a tiny machine with spinning disks: 128 MB of shared buffers, a random
 * read costed at 4 sequential ones, no I/O prefetch. docs/benchmarks.md ("PostgreSQL settings") lists the same settings, with the
 * reason for each, for an external server.
 *
 * The embedded server shares the machine with enrich itself (and, on a laptop, with everything
 * else), so it takes a modest share of memory and leaves the rest to the OS page cache, which
 * PostgreSQL reads through (effective_cache_size tells the planner about it).
 */
export interface Machine {
  totalMemoryBytes: number;
  cpus: number;
}

const MB = 1024 * 1024;
const mb = (bytes: number) => `${Math.floor(bytes / MB)}MB`;
const clamp = (v: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, v));

export function embeddedSettings(m: Machine): Record<string, string> {
  const cpus = Math.max(1, m.cpus);
  return {
    // 15% of memory, 128 MB to 4 GB: the hot indexes stay in PostgreSQL's own cache; the records
    // are read through the OS cache, which gets the rest.
    shared_buffers: mb(clamp(m.totalMemoryBytes * 0.15, 128 * MB, 4096 * MB)),
    effective_cache_size: mb(clamp(m.totalMemoryBytes * 0.6, 512 * MB, 64 * 1024 * MB)),
    // Lists sort one page of ids; 16 MB keeps a bounded count's hash or a bitmap in memory.
    work_mem: '16MB',
    // Index builds (migrations, the initial load): up to 1 GB, 5% of memory.
    maintenance_work_mem: mb(clamp(m.totalMemoryBytes * 0.05, 64 * MB, 1024 * MB)),
    // Solid-state storage: a random read costs little more than a sequential one, and many can be
    // in flight (bitmap heap scans prefetch).
    random_page_cost: '1.1',
    effective_io_concurrency: '200',
    // Parallel workers for the big scans (counts, index builds), at most half the cores per query
    // so concurrent requests are not starved.
    max_worker_processes: String(Math.max(8, cpus)),
    max_parallel_workers: String(cpus),
    max_parallel_workers_per_gather: String(clamp(Math.floor(cpus / 2), 0, 4)),
    max_parallel_maintenance_workers: String(clamp(Math.floor(cpus / 2), 1, 4)),
    // JIT compilation costs tens of ms per query and pays off only on long analytic scans; every
    // query of this service is a short indexed one.
    jit: 'off',
  };
}

/** The settings as postgres command-line flags (-c name=value ...). */
export const settingFlags = (settings: Record<string, string>): string[] =>
  Object.entries(settings).flatMap(([name, value]) => ['-c', `${name}=${value}`]);
