/** Monitor tests: a resolver with a few fixed names (no DNS needed), falling back to the system one. */
import { systemResolver, type ResolveHost } from '../../src/domain/webhooks/ssrf';

export const PUBLIC_ADDRESS = '93.184.215.14';

export const FAKE_DNS: Record<string, string[]> = {
  'hooks.example.test': [PUBLIC_ADDRESS],
  'hooks6.example.test': ['2606:4700::6810:84e5'],
  'mixed.example.test': [PUBLIC_ADDRESS, '10.1.2.3'],
  'metadata.example.test': ['169.254.169.254'],
  'mapped.example.test': ['::ffff:a9fe:a9fe'],
  'cgnat.example.test': ['100.64.0.7'],
  'ula.example.test': ['fd12:3456::1'],
  'nat64.example.test': ['64:ff9b::a9fe:a9fe'],
};

export const fakeResolver: ResolveHost = async (host) => FAKE_DNS[host] ?? systemResolver(host);

export const monitorBody = (overrides: Record<string, unknown> = {}) => ({
  type: 'person',
  subject_url: `https://www.linkedin.com/in/watched-${Math.random().toString(36).slice(2)}`,
  webhook_url: 'https://hooks.example.test/enrich',
  ...overrides,
});
