/**
 * Every way a client may name a person or a company, reduced to the one column that is looked up.
 * A profile URL is reduced to its slug, so `network_url` and `username` are the same lookup.
 */
import { canonicalCompanyId, isNumericId, type CompanyKey, type PersonKey } from '../../model/identifiers';
import { validationError } from '../errors';
import { hasUnstorableText } from '../text';

/** Hosts of the upstream network; country subdomains (uk., de., ...) and www. are accepted too. */
const NETWORK_DOMAIN = 'linkedin.com';

/**
 * THE normalization of textual identifiers (usernames, profile URL slugs), applied in JavaScript on
 * write (the stored columns and the suppression digests) and on read (every lookup), never in SQL:
 * PostgreSQL's lower() depends on the database's LC_CTYPE (with `C` it lowers ASCII only; with
 * C.UTF-8 it lowers İ to i where JavaScript gives i + U+0307) and JavaScript's toLowerCase keeps
 * final sigma and ß, so the two disagreed and records with such names could not be reached.
 *
 * The rule, to a fixed point: Unicode NFC (so NFC and NFD spellings are one), then full case
 * folding approximated by lower(upper(lower(x))) with JavaScript's locale-independent case
 * mappings (ß and ẞ -> ss, ﬁ -> fi, Σ/σ/ς -> σ, İ -> i + U+0307, Cyrillic, Greek and other
 * bicameral scripts lower-cased; CJK and other caseless scripts unchanged), then NFC again. One
 * deliberate difference from Unicode case folding: dotless ı folds like i (its upper case is I).
 */
export function normalizeIdentifier(text: string): string {
  // ASCII (most identifiers): already NFC, and lower(upper(lower(x))) is lower(x).
  if (ASCII.test(text)) return text.toLowerCase();
  let value = text.normalize('NFC');
  for (let i = 0; i < 4; i++) {
    const next = value.toLowerCase().toUpperCase().toLowerCase().replace(/ς/g, 'σ').normalize('NFC');
    if (next === value) break;
    value = next;
  }
  return value;
}

const ASCII = /^[\x00-\x7f]*$/;

/** The form before normalizeIdentifier, for tombstones written then (see PersonKey.legacy). */
function legacyForm(text: string): string {
  return text.toLowerCase();
}

function withLegacy<K extends PersonKey | CompanyKey>(key: K, raw: string): K {
  const legacy = legacyForm(raw);
  return legacy === key.value ? key : { ...key, legacy };
}

/**
 * The slug after `/<section>/` of a network URL, lower-cased; undefined when the text is not such a
 * URL. Tolerates a missing scheme, http vs https, www and country subdomains, letter case, trailing
 * slashes, further path segments, query strings and fragments.
 */
export function slugFromNetworkUrl(text: string, section: 'in' | 'company'): string | undefined {
  const raw = rawSlugFromNetworkUrl(text, section);
  return raw === undefined ? undefined : normalizeIdentifier(raw);
}

/** The slug as written in the URL (decoded, trimmed), before normalization. */
function rawSlugFromNetworkUrl(text: string, section: 'in' | 'company'): string | undefined {
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
  slug = slug.trim();
  // `%00` decodes to NUL, which no username holds and PostgreSQL refuses (text.ts): not a profile
  // URL, so the caller's 400 names its parameter (and a bulk item fails alone), instead of a
  // database error naming nothing.
  return slug && !/[\s/]/.test(slug) && !hasUnstorableText(slug) ? slug : undefined;
}

/** A username key from a profile URL, with its legacy form; undefined when it is not such a URL. */
export function slugKey<K extends PersonKey | CompanyKey>(text: string, section: 'in' | 'company'): K | undefined {
  const raw = rawSlugFromNetworkUrl(text, section);
  return raw === undefined ? undefined : withLegacy({ by: 'username', value: normalizeIdentifier(raw) } as K, raw);
}

const present = (value: unknown): value is string => typeof value === 'string';

/** GET /person, /person/check and the other person-keyed operations: network_url, then username, then id. */
export function personKeyFromQuery(query: Record<string, unknown>): PersonKey {
  if (present(query.network_url)) {
    const key = slugKey<PersonKey>(query.network_url, 'in');
    if (!key) {
      throw validationError(
        `network_url: not a person profile URL; expected https://www.${NETWORK_DOMAIN}/in/<username>`,
      );
    }
    return key;
  }
  if (present(query.username)) return usernameKey<PersonKey>(query.username);
  if (present(query.id)) return { by: 'id', value: query.id.toLowerCase() };
  throw validationError('Provide one of network_url, username or id');
}

/** GET /company and /company/check: network_url, then username, then company_id, then id. */
export function companyKeyFromQuery(query: Record<string, unknown>): CompanyKey {
  if (present(query.network_url)) {
    const key = slugKey<CompanyKey>(query.network_url, 'company');
    if (!key) {
      throw validationError(
        `network_url: not a company page URL; expected https://www.${NETWORK_DOMAIN}/company/<username>`,
      );
    }
    return key;
  }
  if (present(query.username)) return usernameKey<CompanyKey>(query.username);
  if (present(query.company_id)) return { by: 'company_id', value: canonicalCompanyId(query.company_id) };
  if (present(query.id)) return { by: 'id', value: query.id.toLowerCase() };
  throw validationError('Provide one of network_url, username, company_id or id');
}

function usernameKey<K extends PersonKey | CompanyKey>(username: string): K {
  const raw = username.trim();
  if (!raw) throw validationError('username: must not be blank');
  return withLegacy({ by: 'username', value: normalizeIdentifier(raw) } as K, raw);
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
    const key = slugKey<PersonKey | CompanyKey>(value, kind === 'person' ? 'in' : 'company');
    if (!key) throw validationError(`identifier: not a ${kind} URL of the network`);
    return key;
  }
  if (isUuid(value)) return { by: 'id', value: value.toLowerCase() };
  if (isNumericId(value)) {
    return kind === 'person' ? { by: 'network_id', value } : { by: 'company_id', value: canonicalCompanyId(value) };
  }
  if (kind === 'person' && /^(urn:|ACo)/.test(value)) return { by: 'network_urn', value };
  return usernameKey(value);
}
