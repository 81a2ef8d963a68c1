import { loadConfig } from '../../../src/config';
import { attemptsFor, CONTRACT_SCHEDULE_SECONDS, retryAfterSeconds, retryDelaySeconds } from '../../../src/domain/webhooks/schedule';
import { payload } from '../../../src/domain/webhooks/payload';
import { sign } from '../../../src/domain/webhooks/signing';

describe('the retry schedule', () => {
  it("is the contract's by default: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h, 8 attempts in all", () => {
    expect(loadConfig({}).webhooks.delivery.schedule).toEqual([5, 300, 1800, 7200, 18_000, 36_000, 36_000]);
    expect(CONTRACT_SCHEDULE_SECONDS).toEqual(loadConfig({}).webhooks.delivery.schedule);
    expect(attemptsFor(CONTRACT_SCHEDULE_SECONDS)).toBe(8);
  });

  it('applies ±20 % jitter around each step, and the last step beyond the schedule', () => {
    const s = CONTRACT_SCHEDULE_SECONDS;
    for (let made = 1; made <= 7; made++) {
      expect(retryDelaySeconds(s, made, () => 0)).toBeCloseTo(s[made - 1]! * 0.8);
      expect(retryDelaySeconds(s, made, () => 0.5)).toBeCloseTo(s[made - 1]!);
      expect(retryDelaySeconds(s, made, () => 1)).toBeCloseTo(s[made - 1]! * 1.2);
    }
    expect(retryDelaySeconds(s, 12, () => 0.5)).toBe(36_000);
    const spread = new Set(Array.from({ length: 50 }, () => retryDelaySeconds(s, 2)));
    expect(spread.size).toBeGreaterThan(1);
    for (const d of spread) {
      expect(d).toBeGreaterThanOrEqual(240);
      expect(d).toBeLessThanOrEqual(360);
    }
  });

  it('is shortened by WEBHOOK_RETRY_SCHEDULE, and refuses a malformed one', () => {
    expect(loadConfig({ WEBHOOK_RETRY_SCHEDULE: '0.2, 1,2' }).webhooks.delivery.schedule).toEqual([0.2, 1, 2]);
    expect(() => loadConfig({ WEBHOOK_RETRY_SCHEDULE: '1,x' })).toThrow(/WEBHOOK_RETRY_SCHEDULE/);
    expect(loadConfig({}).webhooks.delivery).toMatchObject({ timeoutMs: 15_000, retryAfterCapSeconds: 3600, deactivateAfterSeconds: 5 * 86_400, inProcess: true });
    expect(() => loadConfig({ WEBHOOK_TIMEOUT_MS: '20000' })).toThrow(/WEBHOOK_TIMEOUT_MS/);
  });

  it('reads Retry-After as seconds or an HTTP date, capped; unreadable is ignored', () => {
    const now = Date.parse('2026-11-21T10:00:00Z');
    expect(retryAfterSeconds('120', 3600, now)).toBe(120);
    expect(retryAfterSeconds('999999', 3600, now)).toBe(3600);
    expect(retryAfterSeconds('Sat, 21 Nov 2026 10:02:00 GMT', 3600, now)).toBe(120);
    expect(retryAfterSeconds('Sat, 21 Nov 2026 09:00:00 GMT', 3600, now)).toBe(0);
    expect(retryAfterSeconds('soon', 3600, now)).toBeUndefined();
    expect(retryAfterSeconds(undefined, 3600, now)).toBeUndefined();
  });
});

describe('the payload', () => {
  it("serializes the contract's example exactly as its published test vector was signed", () => {
    const body = payload('0b6f3d2a-8c1e-4f5a-9d7b-3e2c1a0f9e8d', 'person.job_changed', '6c1e9f0a-2b7d-4c3e-9a8f-0d1e2f3a4b5c', new Date(1795256052_000), {
      old_company: 'Brightwave Payments',
      new_company: 'Northwind Analytics',
      old_company_id: '10455821',
      new_company_id: '18234567',
      old_title: 'Product Manager, Payouts',
      new_title: 'Senior Product Manager',
    }, { type: 'person', id: '3f6c2b1e-9a4d-4e7f-8b2c-1d0e9f8a7b6c', username: 'jane-okafor-4821', network_url: 'https://www.linkedin.com/in/jane-okafor-4821/' });
    expect(sign('whsec_VhuTo9kNdSRIdunwNHqRYhu59N7IC3SG', '0b6f3d2a-8c1e-4f5a-9d7b-3e2c1a0f9e8d', 1795256052, body)).toBe(
      'v1,1H7GUEnNPlAdpDn4lkGF+/9J+nVVvuJbxsjr4y3mn7Q=',
    );
  });
});
