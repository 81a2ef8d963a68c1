import { newRequestId } from '../../src/http/middleware/edge';

describe('newRequestId', () => {
  it('is req_ and 32 hex digits, and never repeats across refills of its random pool', () => {
    // 1,000 ids: the 256-id pool is refilled three times on the way.
    const ids = Array.from({ length: 1000 }, () => newRequestId());
    for (const id of ids) expect(id).toMatch(/^req_[0-9a-f]{32}$/);
    expect(new Set(ids).size).toBe(ids.length);
  });
});
