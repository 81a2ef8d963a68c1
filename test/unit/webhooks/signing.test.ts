import { randomUUID } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { sign, webhookHeaders } from '../../../src/domain/webhooks/signing';
import { generateWebhookSecret, loadServerKeys, ServerKeys } from '../../../src/domain/webhooks/secrets';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

describe('Standard Webhooks signing', () => {
  it('reproduces the published test vector', () => {
    const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
    const id = 'msg_p5jXN8AQM9LWM0D4loKWxJek';
    const timestamp = 1614265330;
    const body = '{"test": 2432232314}';
    expect(sign(secret, id, timestamp, body)).toBe('v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=');
    // And the independent implementation agrees on the same vector.
    expect(new Webhook(secret).sign(id, new Date(timestamp * 1000), body)).toBe('v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=');
  });

  it('headers verify with the standardwebhooks package, with either secret during a rotation', () => {
    const current = generateWebhookSecret();
    const previous = generateWebhookSecret();
    expect(current).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const body = JSON.stringify({ id: randomUUID(), event: 'person.job_changed', diff: {} });
    const now = Math.floor(Date.now() / 1000);
    const headers = webhookHeaders([current, previous], randomUUID(), now, body);
    expect(headers['webhook-signature'].split(' ')).toHaveLength(2);
    expect(new Webhook(current).verify(body, { ...headers })).toEqual(JSON.parse(body));
    expect(new Webhook(previous).verify(body, { ...headers })).toEqual(JSON.parse(body));
    expect(() => new Webhook(generateWebhookSecret()).verify(body, { ...headers })).toThrow();
    expect(() => new Webhook(current).verify(`${body} `, { ...headers })).toThrow();
  });
});

describe('secrets at rest', () => {
  it('round-trips under the server key, and under a previous key after the server key rotated', () => {
    const oldKey = randomBytes(32);
    const newKey = randomBytes(32);
    const secret = generateWebhookSecret();
    const stored = new ServerKeys(oldKey).encrypt(secret);
    expect(stored).not.toContain(secret.slice(6));
    expect(new ServerKeys(oldKey).decrypt(stored)).toBe(secret);
    expect(new ServerKeys(newKey, [oldKey]).decrypt(stored)).toBe(secret);
    expect(() => new ServerKeys(newKey).decrypt(stored)).toThrow(/unknown server key/);
    const tampered = stored.slice(0, -4) + (stored.endsWith('AAA=') ? 'BBB=' : 'AAA=');
    expect(() => new ServerKeys(oldKey).decrypt(tampered)).toThrow();
  });

  it('generates the embedded default key once into the data directory, mode 0600', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'enrich-keys-'));
    const a = loadServerKeys({ key: undefined, previous: [], dataDir: dir });
    const b = loadServerKeys({ key: undefined, previous: [], dataDir: dir });
    expect(b.decrypt(a.encrypt('whsec_x'))).toBe('whsec_x');
    expect(fs.statSync(path.join(dir, 'webhook-secret.key')).mode & 0o777).toBe(0o600);
    expect(() => loadServerKeys({ key: 'c2hvcnQ=', previous: [], dataDir: dir })).toThrow(/32 bytes/);
    fs.rmSync(dir, { recursive: true });
  });
});
