/**
 * Every operation of the contract has its integration test file under the operation's name,
 * test/integration/<tag>/<operationId>.test.ts (the tag in lower case, as the handlers'
 * directories), so `grep -rn <operationId> test` finds where it is proven.
 */
import fs from 'node:fs';
import path from 'node:path';

const root = path.join(__dirname, '..', '..');
const document = JSON.parse(fs.readFileSync(path.join(root, 'generated', 'openapi.json'), 'utf8')) as {
  paths: Record<string, Record<string, { operationId?: string; tags?: string[] }>>;
};

const operations = Object.values(document.paths).flatMap((item) =>
  Object.values(item).flatMap((op) => (op && typeof op === 'object' && op.operationId ? [{ operationId: op.operationId, tag: op.tags?.[0] ?? '' }] : [])),
);

describe('one integration test file per operationId', () => {
  it('the contract has operations', () => {
    expect(operations.length).toBeGreaterThan(0);
  });

  it('every operationId has test/integration/<tag>/<operationId>.test.ts', () => {
    const missing = operations
      .map(({ operationId, tag }) => path.join('test', 'integration', tag.toLowerCase(), `${operationId}.test.ts`))
      .filter((file) => !fs.existsSync(path.join(root, file)));
    expect(missing).toEqual([]);
  });
});
