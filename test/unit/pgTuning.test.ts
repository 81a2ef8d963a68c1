/** The embedded PostgreSQL's settings from the machine (src/db/tuning.ts). */
import { embeddedSettings, settingFlags } from '../../src/db/tuning';

const GB = 1024 ** 3;

describe('embeddedSettings', () => {
  it('a 2-core, 23 GB machine: 15% shared buffers, 60% cache, SSD costs, one parallel worker per query, no JIT', () => {
    expect(embeddedSettings({ totalMemoryBytes: 23 * GB, cpus: 2 })).toEqual({
      shared_buffers: '3532MB',
      effective_cache_size: '14131MB',
      work_mem: '16MB',
      maintenance_work_mem: '1024MB',
      random_page_cost: '1.1',
      effective_io_concurrency: '200',
      max_worker_processes: '8',
      max_parallel_workers: '2',
      max_parallel_workers_per_gather: '1',
      max_parallel_maintenance_workers: '1',
      jit: 'off',
    });
  });

  it('bounds: small machines keep PostgreSQL minimums, big ones are capped', () => {
    const small = embeddedSettings({ totalMemoryBytes: 0.5 * GB, cpus: 1 });
    expect([small.shared_buffers, small.effective_cache_size, small.maintenance_work_mem]).toEqual(['128MB', '512MB', '64MB']);
    expect([small.max_parallel_workers_per_gather, small.max_parallel_maintenance_workers]).toEqual(['0', '1']);
    const big = embeddedSettings({ totalMemoryBytes: 512 * GB, cpus: 64 });
    expect([big.shared_buffers, big.effective_cache_size, big.maintenance_work_mem]).toEqual(['4096MB', '65536MB', '1024MB']);
    expect([big.max_worker_processes, big.max_parallel_workers, big.max_parallel_workers_per_gather]).toEqual(['64', '64', '4']);
  });

  it('as postgres flags', () => {
    expect(settingFlags({ jit: 'off', work_mem: '16MB' })).toEqual(['-c', 'jit=off', '-c', 'work_mem=16MB']);
  });
});
