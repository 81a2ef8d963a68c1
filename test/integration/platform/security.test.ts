import { createHarness, type Harness } from '../../helpers/harness';
import { contractOperations } from '../../helpers/operations';
import { runSecurityCases } from '../../helpers/securityCases';

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(() => h.close());

describe('shared security cases, every protected operation', () => {
  it('covers every operation except the public probes and the dashboard sign-in (which takes the key or link in its body)', () => {
    const ops = contractOperations();
    expect(ops.filter((o) => !o.secured).map((o) => o.operationId).sort()).toEqual(['createSession', 'getHealth', 'getReadiness']);
  });
  runSecurityCases(() => h, contractOperations());
});
