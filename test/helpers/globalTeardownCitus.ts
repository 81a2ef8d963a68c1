/** Drops the run's databases (globalTeardown.ts), then stops the Citus cluster of globalSetupCitus.ts. */
import globalTeardown from './globalTeardown';
import { stopCitusCluster } from './globalSetupCitus';

export default async function globalTeardownCitus(): Promise<void> {
  await globalTeardown();
  await stopCitusCluster();
}
