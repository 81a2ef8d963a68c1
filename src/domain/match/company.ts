/**
 * matchCompany: a domain (or website, or an email's domain), a name with an optional location, or
 * an identifier. Same stages as person.ts: normalise, candidates, compare, weigh, calibrate.
 */
import type { Knex } from 'knex';
import type { components } from '../../../generated/types';
import { findCompanyJson } from '../../db/repositories/companyRecords';
import { AppError } from '../errors';
import { companyKeyFromQuery } from '../lake/identifiers';
import { findCompanyCandidates, type CompanyCandidateRecord, type FoundCompany } from './candidates';
import { closeCompany, comparePlace, similar, type Comparison, type CompanyField, type Level } from './compare';
import { companyKey, parseEmail, placeOf, registrableDomain, words } from './normalize';
import { weigh } from './score';
import { PARAMETERS, type MatchParameters } from './parameters';
import { DEFAULT_MIN_LIKELIHOOD, identifierVerdict, noMatch, rank, type MatchVerdict } from './verdict';

export type CompanyMatchRequest = components['schemas']['CompanyMatchRequest'];
export type CompanySearchHit = components['schemas']['CompanySearchHit'];

const COMBINATIONS = 'Send a domain (or a website URL), a work email, a company name (with an optional location), or an identifier (network_url, username, company_id or id).';
const insufficient = (why: string) => new AppError('MATCH_INPUT_INSUFFICIENT', `${why} ${COMBINATIONS}`);

export interface CompanyQuery {
  domain: string | null;
  /** companyKey of the name. */
  name: string | null;
  location: { folded: string; countryCode: string | null } | null;
}

const text = (v: string | undefined) => (v !== undefined && v.trim() !== '' ? v : undefined);

export function companyInput(r: CompanyMatchRequest): { kind: 'identifier' } | { kind: 'query'; query: CompanyQuery } {
  if (text(r.network_url) || text(r.username) || r.company_id || r.id) return { kind: 'identifier' };
  let domain: string | null = null;
  if (text(r.domain)) {
    domain = registrableDomain(r.domain!);
    if (domain === null) throw insufficient(`domain "${r.domain!.slice(0, 100)}" is not a domain name.`);
  } else if (text(r.email)) {
    const email = parseEmail(r.email!);
    if (email === null) throw insufficient('email is not an email address with a domain name.');
    if (!email.freeMail) domain = email.domain;
  }
  const name = text(r.name) ? companyKey(r.name!) || null : null;
  const location = text(r.location) ? placeOf(r.location!) : null;
  if (!domain && !name) throw insufficient(text(r.email) ? 'A free mail domain says nothing about a company.' : 'Too little to match on.');
  return { kind: 'query', query: { domain, name, location } };
}

/** The company's name against the query's: its current name, a former name, or how close. */
export function compareCompanyName(input: string, c: CompanyCandidateRecord, formerNames: readonly string[]): Comparison<'name'> {
  const current = companyKey(c.name);
  const out = (level: Level, record: string | null = current): Comparison<'name'> => ({ field: 'name', level, input, record });
  if (current === input) return out('exact');
  const former = formerNames.map(companyKey).find((f) => f === input);
  if (former !== undefined) return out('former', former);
  if (closeCompany(input, current) || similar(input, current) >= 0.95) return out('close');
  const qw = words(input);
  const cw = new Set(words(current));
  if (qw.length > 0 && qw.filter((w) => cw.has(w)).length >= Math.min(qw.length, cw.size)) return out('partial');
  return out('different');
}

export function compareCompanyDomain(input: string, c: CompanyCandidateRecord): Comparison<'domain'> {
  const record = c.website ? registrableDomain(c.website) : null;
  if (record === null) return { field: 'domain', level: 'missing_in_record', input, record: null };
  return { field: 'domain', level: record === input ? 'exact' : 'different', input, record };
}

export function compareCompany(q: CompanyQuery, found: FoundCompany): Comparison<CompanyField>[] {
  const c = found.candidate;
  const out: Comparison<CompanyField>[] = [];
  if (q.domain) out.push(compareCompanyDomain(q.domain, c));
  if (q.name) out.push(compareCompanyName(q.name, c, found.formerNames));
  if (q.location && q.location.folded) {
    out.push(comparePlace('location', q.location, { city: c.hq_city, region: c.hq_geographic_area ?? null, country: c.hq_country, countryCode: c.hq_country_code }));
  }
  return out;
}

export interface CompanyMatchOutcome {
  text: string;
  match: MatchVerdict;
  candidates?: { data: CompanySearchHit; match: MatchVerdict }[];
}

const AGREES: readonly Level[] = ['exact', 'close', 'former', 'partial'];

/** The compared candidates of a query, each eligible: the domain or the name agrees (a location alone never makes a match). */
export async function compareCompanyCandidates(db: Knex, query: CompanyQuery) {
  const found = await findCompanyCandidates(db, query);
  return found
    .map((f) => ({ item: f, comparisons: compareCompany(query, f) }))
    .filter((c) => c.comparisons.some((e) => e.field !== 'location' && AGREES.includes(e.level)));
}

export function rankCompanies(compared: readonly { item: FoundCompany; comparisons: Comparison[] }[], parameters: MatchParameters = PARAMETERS) {
  return rank<FoundCompany>('company', compared.map((c) => ({ item: c.item, evidence: weigh('company', c.comparisons, parameters) })), parameters);
}

export async function matchCompany(db: Knex, r: CompanyMatchRequest): Promise<CompanyMatchOutcome> {
  const min = r.min_likelihood ?? DEFAULT_MIN_LIKELIHOOD;
  const input = companyInput(r);
  if (input.kind === 'identifier') {
    const key = companyKeyFromQuery(r as Record<string, unknown>);
    const found = await findCompanyJson(db, key.by, key.value);
    if (found === undefined) throw noMatch(min);
    const match = identifierVerdict(key.value);
    return { text: found, match, ...(r.candidates ? { candidates: [{ data: companyHit(JSON.parse(found)), match }] } : {}) };
  }
  const ranked = rankCompanies(await compareCompanyCandidates(db, input.query)).filter((c) => c.verdict.likelihood >= min);
  const best = ranked[0];
  if (!best) throw noMatch(min);
  return {
    text: best.item.text,
    match: best.verdict,
    ...(r.candidates ? { candidates: ranked.slice(0, r.candidates).map((c) => ({ data: companyHit(JSON.parse(c.item.text)), match: c.verdict })) } : {}),
  };
}

const HIT_FIELDS = ['id', 'company_id', 'name', 'username', 'network_url', 'industries', 'staff_count', 'hq_city', 'hq_country_code', 'founded_year', 'fetched_at'] as const;

export function companyHit(record: Record<string, unknown>): CompanySearchHit {
  return Object.fromEntries(HIT_FIELDS.map((f) => [f, record[f] ?? (f === 'industries' ? [] : null)])) as CompanySearchHit;
}
