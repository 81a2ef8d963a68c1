/**
 * Every way a client may name a person or a company, reduced to the one column that is looked up.
 * A profile URL is reduced to its slug, so `network_url` and `username` are the same lookup.
 */
import { validationError } from '../errors';

/** Hosts of the upstream network; country subdomains (uk., de., ...) and www. are accepted too. */
const NETWORK_DOMAIN = 'linkedin.com';

export type PersonKey = { by: 'username' | 'id' | 'network_id' | 'network_urn'; value: string };
export type CompanyKey = { by: 'username' | 'company_id' | 'id'; value: string };

/**
 * The slug after `/<section>/` of a network URL, lower-cased; undefined when the text is not such a
 * URL. Tolerates a missing scheme, http vs https, www and country subdomains, letter case, trailing
 * slashes, further path segments, query strings and fragments.
 */
export function slugFromNetworkUrl(text: string, section: 'in' | 'company'): string | undefined {
  const trimmed = text.trim();
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(trimmed) ? trimmed : `https://${trimmed}`;
  let url: URL;
  try {
    url = new URL(withScheme);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return undefined;
  const host = url.hostname.toLowerCase();
  if (host !== NETWORK_DOMAIN && !host.endsWith(`.${NETWORK_DOMAIN}`)) return undefined;
  const segments = url.pathname.split('/').filter(Boolean);
  if (segments.length < 2 || segments[0].toLowerCase() !== section) return undefined;
  let slug: string;
  try {
    slug = decodeURIComponent(segments[1]);
  } catch {
    return undefined;
  }
  slug = slug.trim().toLowerCase();
  return slug && !/[\s/]/.test(slug) ? slug : undefined;
}

const present = (value: unknown): value is string => typeof value === 'string';

/** GET /person, /person/check and the other person-keyed operations: network_url, then username, then id. */
export function personKeyFromQuery(query: Record<string, unknown>): PersonKey {
  if (present(query.network_url)) {
    const slug = slugFromNetworkUrl(query.network_url, 'in');
    if (!slug) {
      throw validationError(
        `network_url: not a person profile URL; expected https://www.${NETWORK_DOMAIN}/in/<username>`,
      );
    }
    return { by: 'username', value: slug };
  }
  if (present(query.username)) return { by: 'username', value: normalizeUsername(query.username) };
  if (present(query.id)) return { by: 'id', value: query.id.toLowerCase() };
  throw validationError('Provide one of network_url, username or id');
}

/** GET /company and /company/check: network_url, then username, then company_id, then id. */
export function companyKeyFromQuery(query: Record<string, unknown>): CompanyKey {
  if (present(query.network_url)) {
    const slug = slugFromNetworkUrl(query.network_url, 'company');
    if (!slug) {
      throw validationError(
        `network_url: not a company page URL; expected https://www.${NETWORK_DOMAIN}/company/<username>`,
      );
    }
    return { by: 'username', value: slug };
  }
  if (present(query.username)) return { by: 'username', value: normalizeUsername(query.username) };
  if (present(query.company_id)) return { by: 'company_id', value: canonicalCompanyId(query.company_id) };
  if (present(query.id)) return { by: 'id', value: query.id.toLowerCase() };
  throw validationError('Provide one of network_url, username, company_id or id');
}

/** A numeric company ID as every lookup and tombstone compares it: without leading zeros. */
export const canonicalCompanyId = (digits: string) => digits.replace(/^0+(?=\d)/, '');

const INT8_MAX = 9223372036854775807n;

/**
 * A numeric company ID (the contract allows up to 19 digits) as stored (bigint, no leading zeros);
 * undefined when it exceeds the stored range, so no company can have it.
 */
export function storedCompanyId(digits: string): string | undefined {
  const canonical = canonicalCompanyId(digits);
  return BigInt(canonical) <= INT8_MAX ? canonical : undefined;
}

function normalizeUsername(username: string): string {
  const value = username.trim().toLowerCase();
  if (!value) throw validationError('username: must not be blank');
  return value;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A service ID in its canonical text form (either letter case). */
export const isUuid = (text: string) => UUID.test(text);

/**
 * The operator's `enrich suppress` argument: whatever identifier the data subject's request names.
 * URL -> slug, UUID -> id, digits -> network_id (persons) or company_id (companies), a URN -> network_urn
 * (persons), anything else -> username.
 */
export function keyFromOperatorInput(kind: 'person', text: string): PersonKey;
export function keyFromOperatorInput(kind: 'company', text: string): CompanyKey;
export function keyFromOperatorInput(kind: 'person' | 'company', text: string): PersonKey | CompanyKey {
  const value = text.trim();
  if (!value) throw validationError('identifier: must not be blank');
  if (/^https?:\/\//i.test(value) || value.toLowerCase().includes(`${NETWORK_DOMAIN}/`)) {
    const slug = slugFromNetworkUrl(value, kind === 'person' ? 'in' : 'company');
    if (!slug) throw validationError(`identifier: not a ${kind} URL of the network`);
    return { by: 'username', value: slug };
  }
  if (isUuid(value)) return { by: 'id', value: value.toLowerCase() };
  if (/^[0-9]{1,19}$/.test(value)) {
    return kind === 'person' ? { by: 'network_id', value } : { by: 'company_id', value: canonicalCompanyId(value) };
  }
  if (kind === 'person' && /^(urn:|ACo)/.test(value)) return { by: 'network_urn', value };
  return { by: 'username', value: value.toLowerCase() };
}
