/**
 * Webhook secrets: `whsec_` + base64 of 32 random bytes (the Standard Webhooks form), stored
 * encrypted at rest with AES-256-GCM under a server key.
 *
 * The server key is WEBHOOK_SECRET_KEY (base64 of 32 bytes). Without it (the embedded default), a
 * key is generated once into `<data dir>/webhook-secret.key` (mode 0600) and read from there after.
 * Each ciphertext names the key that made it (`v1.<key id>.<iv|tag|ciphertext>`), so a rotation of
 * the server key is: set the new key in WEBHOOK_SECRET_KEY and the old one in
 * WEBHOOK_SECRET_KEYS_PREVIOUS (comma-separated); secrets made under the old key still decrypt,
 * new ones use the new key. (README, "Webhook secrets".)
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

export function generateWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

export class ServerKeys {
  private readonly byId: Map<string, Buffer>;
  constructor(
    private readonly current: Buffer,
    previous: readonly Buffer[] = [],
  ) {
    this.byId = new Map([current, ...previous].map((k) => [keyId(k), k]));
  }

  encrypt(plain: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.current, iv);
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return `v1.${keyId(this.current)}.${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64')}`;
  }

  decrypt(stored: string): string {
    const [version, id, payload] = stored.split('.');
    const key = id === undefined ? undefined : this.byId.get(id);
    if (version !== 'v1' || !key || payload === undefined) {
      throw new Error(`webhook secret encrypted with an unknown server key (${id ?? '?'}): set it in WEBHOOK_SECRET_KEYS_PREVIOUS`);
    }
    const raw = Buffer.from(payload, 'base64');
    const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, 12));
    decipher.setAuthTag(raw.subarray(12, 28));
    return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
  }
}

const keyId = (key: Buffer) => createHash('sha256').update(key).digest('hex').slice(0, 8);

export function parseServerKey(text: string, name: string): Buffer {
  const key = Buffer.from(text.trim(), 'base64');
  if (key.length !== 32) throw new Error(`${name} must be the base64 of 32 bytes (openssl rand -base64 32)`);
  return key;
}

interface KeyConfig {
  webhooks: { secretKey: string | undefined; previousSecretKeys: readonly string[] };
  dataDir: string;
}

/** The server key's file in the data directory, used when WEBHOOK_SECRET_KEY is not set. */
const keyFileOf = (dataDir: string) => path.join(dataDir, 'webhook-secret.key');

/**
 * The server keys of a configuration (WEBHOOK_SECRET_KEY, WEBHOOK_SECRET_KEYS_PREVIOUS, the data
 * directory): the one way the server, the delivery worker, `enrich monitor` and `enrich listen`
 * get them. `create: false` (listen, run beside a server rather than as one): undefined when
 * neither the setting nor the key file is there, instead of generating a key, which could decrypt
 * nothing stored.
 */
export function serverKeysOf(config: KeyConfig): ServerKeys;
export function serverKeysOf(config: KeyConfig, opts: { create: false }): ServerKeys | undefined;
export function serverKeysOf(config: KeyConfig, opts: { create?: boolean } = {}): ServerKeys | undefined {
  if (opts.create === false && !config.webhooks.secretKey && !fs.existsSync(keyFileOf(config.dataDir))) return undefined;
  return loadServerKeys({ key: config.webhooks.secretKey, previous: config.webhooks.previousSecretKeys, dataDir: config.dataDir });
}

/** The configured key, else the one in the data directory, generated there on first use. */
export function loadServerKeys(opts: { key: string | undefined; previous: readonly string[]; dataDir: string }): ServerKeys {
  const previous = opts.previous.map((k) => parseServerKey(k, 'WEBHOOK_SECRET_KEYS_PREVIOUS'));
  if (opts.key) return new ServerKeys(parseServerKey(opts.key, 'WEBHOOK_SECRET_KEY'), previous);
  const file = keyFileOf(opts.dataDir);
  if (!fs.existsSync(file)) {
    // Written whole under a temporary name, then linked into place: a concurrent starter either
    // links first or finds the complete file (EEXIST), never a half-written one.
    fs.mkdirSync(opts.dataDir, { recursive: true });
    const tmp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
    fs.writeFileSync(tmp, `${randomBytes(32).toString('base64')}\n`, { mode: 0o600 });
    try {
      fs.linkSync(tmp, file);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    } finally {
      fs.unlinkSync(tmp);
    }
  }
  return new ServerKeys(parseServerKey(fs.readFileSync(file, 'utf8'), file), previous);
}
