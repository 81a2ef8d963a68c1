import { useHarness } from '../../helpers/harness';
import { fakeResolver, monitorDeletionCases } from '../../helpers/monitors';

const h = useHarness({ resolveHost: fakeResolver });

// The same cases as DELETE /monitors/{id} (deleteMonitorById.test.ts), under this address.
describe('DELETE /monitors?id=', () => monitorDeletionCases(h, (id) => `/api/v1/monitors?id=${id}`));
