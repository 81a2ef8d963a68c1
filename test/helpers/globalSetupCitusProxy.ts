/** The integration project's setup (globalSetupProxy.ts: the run's database and Prism) on the Citus cluster of globalSetupCitus.ts. */
import { ensureCitusCluster } from './globalSetupCitus';
import globalSetupProxy from './globalSetupProxy';

export default async function globalSetupCitusProxy(): Promise<void> {
  await ensureCitusCluster();
  await globalSetupProxy();
}
