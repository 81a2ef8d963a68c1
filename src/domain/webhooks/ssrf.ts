/**
 * SSRF rules for webhook destinations. Only globally routable unicast addresses are allowed: every
 * range ipaddr.js names (loopback, private, linkLocal, carrierGradeNat, unspecified, broadcast,
 * multicast, reserved (documentation, benchmarking, 240/4), uniqueLocal, rfc6052 (NAT64), 6to4,
 * teredo, discard, ...) is refused. IPv4-mapped IPv6 is reduced to its IPv4 address first.
 * Alternative IPv4 encodings (0x7f000001, 2130706433, 0177.0.0.1, 127.1) are normalised by the
 * WHATWG URL parser before the check, so they are the same addresses as their dotted forms.
 */
import { lookup } from 'node:dns/promises';
import ipaddr from 'ipaddr.js';
import { validationError } from '../errors';

/** Resolves a host name to every address it answers (A and AAAA). */
export type ResolveHost = (host: string) => Promise<string[]>;

export const systemResolver: ResolveHost = async (host) =>
  (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);

export interface SsrfPolicy {
  /** Development only (WEBHOOKS_ALLOW_LOOPBACK): loopback receivers allowed; nothing else is. */
  allowLoopback: boolean;
}

/** Why the address may not be dialled, or undefined when it may. */
export function addressRefusal(address: string, policy: SsrfPolicy): string | undefined {
  if (!ipaddr.isValid(address)) return `"${address}" is not an IP address`;
  const parsed = ipaddr.process(address);
  const range = parsed.range();
  if (range === 'unicast') return undefined;
  if (range === 'loopback' && policy.allowLoopback) return undefined;
  return `${parsed.toString()} is a ${RANGE_NAMES[range] ?? range} address`;
}

const RANGE_NAMES: Record<string, string> = {
  unspecified: 'unspecified (0.0.0.0/8 or ::)',
  broadcast: 'broadcast',
  multicast: 'multicast',
  linkLocal: 'link-local (169.254.0.0/16 or fe80::/10)',
  loopback: 'loopback',
  carrierGradeNat: 'carrier-grade NAT (100.64.0.0/10)',
  private: 'private (RFC 1918)',
  reserved: 'reserved (documentation, benchmarking or future use)',
  uniqueLocal: 'IPv6 unique-local (fc00::/7)',
  rfc6052: 'NAT64 (64:ff9b::/96)',
  '6to4': '6to4 (2002::/16)',
  teredo: 'Teredo (2001::/32)',
  ipv4Mapped: 'IPv4-mapped',
  rfc6145: 'IPv4-translated',
  discard: 'discard-only (100::/64)',
};

/**
 * What a developer with a receiver on their own machine or network can do instead (the refusal
 * alone left them guessing): pull the feed with `enrich listen`, which forwards each event to any
 * local URL; for a loopback receiver, the operator's development-only setting too.
 */
function localHint(address: string): string {
  const loopback = ipaddr.isValid(address) && ipaddr.process(address).range() === 'loopback';
  return (
    ' For a receiver on your own machine or network, run `enrich listen --forward-to <its URL>` (it pulls GET /events and' +
    ' forwards each event, signed like a delivery)' +
    (loopback ? '; or the operator may set WEBHOOKS_ALLOW_LOOPBACK=1 on the server (development only).' : '.')
  );
}

/** The host of a URL as an IP literal (brackets removed), or undefined for a host name. */
export function ipLiteral(hostname: string): string | undefined {
  const bare = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  return ipaddr.isValid(bare) && (bare.includes(':') || ipaddr.IPv4.isValidFourPartDecimal(bare)) ? bare : undefined;
}

/**
 * Checks a webhook URL at monitor creation: https, no userinfo, and a host whose every address
 * (the literal, or every DNS answer) may be dialled. Throws 400 VALIDATION_ERROR saying why.
 * The same address check runs again at every delivery, on the address actually dialled.
 */
export async function assertWebhookUrlAllowed(text: string, policy: SsrfPolicy, resolve: ResolveHost): Promise<URL> {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw validationError('webhook_url: not a valid URL');
  }
  if (url.protocol !== 'https:') throw validationError('webhook_url: must use https');
  if (url.username || url.password) throw validationError('webhook_url: must not contain a user name or password');
  const host = url.hostname;
  if (!host) throw validationError('webhook_url: has no host');
  const literal = ipLiteral(host);
  if (literal) {
    const refusal = addressRefusal(literal, policy);
    if (refusal) throw validationError(`webhook_url: points to a private or internal address: ${refusal}.${localHint(literal)}`);
    return url;
  }
  let addresses: string[];
  try {
    addresses = await resolve(host);
  } catch {
    throw validationError(`webhook_url: the host ${host} does not resolve`);
  }
  if (!addresses.length) throw validationError(`webhook_url: the host ${host} does not resolve`);
  for (const address of addresses) {
    const refusal = addressRefusal(address, policy);
    if (refusal) throw validationError(`webhook_url: the host ${host} resolves to a private or internal address: ${refusal}.${localHint(address)}`);
  }
  return url;
}
