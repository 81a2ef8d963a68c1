import fc from 'fast-check';
import type { OpenAPIBackend } from 'openapi-backend';
import { API_ROOT, createContract } from '../../src/http/contract';
import { RouteTable } from '../../src/http/routeTable';

/** What openapi-backend's own router answers: the operationId, or the 404/405 it throws. */
function reference(api: OpenAPIBackend, method: string, path: string): string {
  try {
    return api.router.matchOperation({ method, path, headers: {}, query: {} }, true).operationId!;
  } catch (err) {
    return (err as Error).message.startsWith('405') ? 'method_not_allowed' : 'not_found';
  }
}

function ours(table: RouteTable, method: string, path: string): string {
  const match = table.match(method, path);
  return typeof match === 'string' ? match : match.operationId!;
}

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'TRACE', 'get'];

describe('RouteTable', () => {
  let api: OpenAPIBackend;
  let table: RouteTable;
  beforeAll(async () => {
    api = await createContract({});
    table = new RouteTable(api);
  }, 60_000);

  it('answers what openapi-backend answers for every path of the contract, every method', () => {
    const paths = new Set<string>();
    for (const op of api.router.getOperations()) {
      paths.add(op.path);
      // Parameters filled with values, including ones that look like other paths' literal segments.
      for (const value of ['abc', '123', 'search', 'bulk', 'realtime', 'x.y', '%20']) {
        paths.add(op.path.replace(/\{[^}]+\}/g, value));
      }
      paths.add(`${op.path.replace(/\{[^}]+\}/g, 'a')}/extra`);
      paths.add(op.path.split('/').slice(0, -1).join('/') || '/');
    }
    let compared = 0;
    for (const path of paths) {
      for (const method of METHODS) {
        const full = `${API_ROOT}${path}`;
        expect([method, full, ours(table, method, full)]).toEqual([method, full, reference(api, method, full)]);
        compared++;
      }
    }
    expect(compared).toBeGreaterThan(api.router.getOperations().length * METHODS.length);
  });

  it('answers what openapi-backend answers for arbitrary paths under the root', () => {
    const segment = fc.oneof(
      fc.constantFrom('person', 'people', 'company', 'companies', 'monitors', 'search', 'bulk', 'health', 'account', 'workspace', 'keys', '{id}'),
      fc.stringMatching(/^[a-z0-9._%-]{1,8}$/),
    );
    fc.assert(
      fc.property(fc.array(segment, { maxLength: 5 }), fc.constantFrom(...METHODS), (segments, method) => {
        const full = `${API_ROOT}/${segments.join('/')}`;
        expect(ours(table, method, full)).toBe(reference(api, method, full));
      }),
      { numRuns: 2000 },
    );
  });
});
