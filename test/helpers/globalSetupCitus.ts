/**
 * Global setup of `npm run test:citus:suite` (jest.citus.config.js): the integration, security and
 * fuzz tests against a Citus cluster instead of one PostgreSQL. It starts a coordinator and two
 * workers (test/citus/cluster.ts), points the run's server at the coordinator and names the workers
 * (TEST_CITUS_WORKER_URLS), so that every database the tests make exists on every node, migrated and
 * laid out as `enrich migrate` + `enrich distribute` lay it out (clusterDatabase.ts); then it does
 * what the project's own setup does. Jest's workers inherit this process's environment.
 *
 * scripts/citus-suite.ts refuses to start jest where Citus is not installed (it says why), so this
 * setup only runs where a cluster can start.
 */
import { citusUnavailable, startCitusCluster, type CitusCluster } from '../citus/cluster';
import { ensureTestDatabase } from './globalSetup';

const state = globalThis as { __enrichCitusCluster?: Promise<CitusCluster> };

/** postgresql.conf lines for the suite's nodes: it holds a database per test file and template, each with a Citus maintenance daemon. */
const SETTINGS = ['max_connections = 300', 'max_worker_processes = 64'];

export async function ensureCitusCluster(): Promise<CitusCluster> {
  const why = citusUnavailable();
  if (why) throw new Error(`the Citus suite cannot run here: ${why}`);
  state.__enrichCitusCluster ??= startCitusCluster('enrich_cluster', { settings: SETTINGS });
  const cluster = await state.__enrichCitusCluster;
  process.env.DATABASE_URL = cluster.coordinator.url('postgres');
  process.env.TEST_CITUS_WORKER_URLS = cluster.workers.map((w) => w.url('postgres')).join(',');
  return cluster;
}

export async function stopCitusCluster(): Promise<void> {
  const cluster = state.__enrichCitusCluster;
  state.__enrichCitusCluster = undefined;
  if (cluster) (await cluster).stop();
}

export default async function globalSetupCitus(): Promise<void> {
  await ensureCitusCluster();
  await ensureTestDatabase();
}
