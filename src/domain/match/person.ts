/**
 * matchPerson: the stages in order. The request into a normalised query (or an identifier, or 400
 * MATCH_INPUT_INSUFFICIENT), candidates (candidates.ts), comparisons (compare.ts), weights
 * (score.ts), likelihoods (calibrate.ts). 404 NO_MATCH below the bar: the same answer whether the
 * lake never had the person or the person was withdrawn (a withdrawn identifier is not a 451 here:
 * a match must not reveal that a subject existed).
 */
import type { Knex } from 'knex';
import type { components } from '../../../generated/types';
import { findPersonJson } from '../../db/repositories/personRecords';
import { AppError } from '../errors';
import { personKeyFromQuery } from '../lake/identifiers';
import { canonicalCompanyId } from '../../model/identifiers';
import { asCandidate, findPersonCandidates, type FoundPerson } from './candidates';
import { compareEmailLocal, compareName, comparePerson, type Comparison, type Level, type PersonQuery } from './compare';
import { PARAMETERS, type MatchParameters } from './parameters';
import { companyKey, nameFromParts, parseEmail, parseName, placeOf, registrableDomain } from './normalize';
import { weigh } from './score';
import { DEFAULT_MIN_LIKELIHOOD, identifierVerdict, noMatch, rank, type MatchVerdict } from './verdict';

export type PersonMatchRequest = components['schemas']['PersonMatchRequest'];
export type PersonSearchHit = components['schemas']['PersonSearchHit'];

const COMBINATIONS =
  'Send a name (name, or first_name and last_name) with one of company, company_domain, company_id, email, location, school or title; or a work email; or an identifier (network_url, username or id).';

export const insufficient = (why: string) => new AppError('MATCH_INPUT_INSUFFICIENT', `${why} ${COMBINATIONS}`);

type Input = { kind: 'identifier'; request: PersonMatchRequest } | { kind: 'query'; query: PersonQuery };

const text = (v: string | undefined) => (v !== undefined && v.trim() !== '' ? v : undefined);

/** The request as a query, or why it cannot be matched. */
export function personInput(r: PersonMatchRequest): Input {
  if (text(r.network_url) || text(r.username) || r.id) return { kind: 'identifier', request: r };
  const name = text(r.name) ? parseName(r.name!) : text(r.first_name) && text(r.last_name) ? nameFromParts(r.first_name, r.last_name) : null;
  const usableName = name && name.tokens.length >= 2 ? name : null;
  let companyDomain: string | null = null;
  if (text(r.company_domain)) {
    companyDomain = registrableDomain(r.company_domain!);
    if (companyDomain === null) throw insufficient(`company_domain "${r.company_domain!.slice(0, 100)}" is not a domain name.`);
  }
  let email = null;
  if (text(r.email)) {
    email = parseEmail(r.email!);
    if (email === null) throw insufficient('email is not an email address with a domain name.');
  }
  const query: PersonQuery = {
    name: usableName,
    company: text(r.company) ? companyKey(r.company!) || null : null,
    companyDomain,
    companyId: r.company_id ? canonicalCompanyId(r.company_id) : null,
    email,
    title: text(r.title) ?? null,
    location: text(r.location) ? placeOf(r.location!) : null,
    school: text(r.school) ? companyKey(r.school!) || null : null,
  };
  const other = query.company || query.companyDomain || query.companyId || query.email || query.title || (query.location && query.location.folded) || query.school;
  if (usableName && other) return { kind: 'query', query };
  if (email && !email.freeMail) return { kind: 'query', query };
  if (name && !usableName) throw insufficient('A name of one word is not enough.');
  if (usableName) throw insufficient('A name alone is not enough.');
  if (email) throw insufficient('A free mail address alone is not enough.');
  throw insufficient('Too little to match on.');
}

/** Levels that agree (a match on the name alone is never given: some other field must agree). */
const AGREES: readonly Level[] = ['exact', 'nickname', 'close', 'partial', 'former'];

export interface PersonMatchOutcome {
  /** The best record's text, served as stored. */
  text: string;
  match: MatchVerdict;
  candidates?: { data: PersonSearchHit; match: MatchVerdict }[];
}

/** Name levels that can be the person asked for: another first name (partial) or another name is someone else. */
const NAME_AGREES: readonly Level[] = ['exact', 'nickname', 'close'];
/** An email's local part may hold only the first or the last name (partial). */
const EMAIL_AGREES: readonly Level[] = ['exact', 'nickname', 'close', 'partial'];

/**
 * Whether a compared candidate may be the answer at all: its name agrees (or, without a name, the
 * email's local part does), and something besides the name agrees too (the name and the email's
 * local part both speak only of the name: a match is never made on a name alone).
 */
export function eligible(comparisons: readonly Comparison[]): boolean {
  const name = comparisons.find((e) => e.field === 'name');
  const email = comparisons.find((e) => e.field === 'email');
  if (name ? !NAME_AGREES.includes(name.level) : email ? !EMAIL_AGREES.includes(email.level) : true) return false;
  return comparisons.some((e) => e.field !== 'name' && e.field !== 'email' && AGREES.includes(e.level));
}

/**
 * Whether a candidate's name can make it eligible: the first test of eligible(), on what the name
 * comparisons read (the record's names: FoundPerson.name), so that a candidate it rules out is
 * neither parsed nor compared field by field. The same outcome as eligible() on the whole
 * comparison: eligible() asks this first, with the same comparisons (comparePerson's name and email).
 */
function nameMayAgree(query: PersonQuery, f: FoundPerson): boolean {
  if (query.name) return NAME_AGREES.includes(compareName(query.name, asCandidate(f.name)).level);
  if (query.email) return EMAIL_AGREES.includes(compareEmailLocal(query.email, asCandidate(f.name)).level);
  return false;
}

/** The compared candidates of a query that may be the answer (eligible). */
export async function comparePersonCandidates(db: Knex, query: PersonQuery) {
  const { resolved, found } = await findPersonCandidates(db, query);
  return found
    .filter((f) => nameMayAgree(query, f))
    .map((f) => ({ item: f, comparisons: comparePerson(query, f.candidate, resolved) }))
    .filter((c) => eligible(c.comparisons));
}

/** Compared candidates weighed and ranked, best first (parameters: the committed ones, or a fit's). */
export function rankPersons(compared: readonly { item: FoundPerson; comparisons: Comparison[] }[], parameters: MatchParameters = PARAMETERS) {
  return rank<FoundPerson>('person', compared.map((c) => ({ item: c.item, evidence: weigh('person', c.comparisons, parameters) })), parameters);
}

export async function matchPerson(db: Knex, r: PersonMatchRequest, defaultMin = DEFAULT_MIN_LIKELIHOOD): Promise<PersonMatchOutcome> {
  const min = r.min_likelihood ?? defaultMin;
  const input = personInput(r);
  if (input.kind === 'identifier') {
    const key = personKeyFromQuery(r as Record<string, unknown>);
    const found = await findPersonJson(db, key.by, key.value);
    if (found === undefined) throw noMatch(min);
    const match = identifierVerdict(key.value);
    return { text: found, match, ...(r.candidates ? { candidates: [{ data: personHit(JSON.parse(found)), match }] } : {}) };
  }
  const ranked = rankPersons(await comparePersonCandidates(db, input.query)).filter((c) => c.verdict.likelihood >= min);
  const best = ranked[0];
  if (!best) throw noMatch(min);
  return {
    text: best.item.text,
    match: best.verdict,
    ...(r.candidates ? { candidates: ranked.slice(0, r.candidates).map((c) => ({ data: personHit(JSON.parse(c.item.text)), match: c.verdict })) } : {}),
  };
}

const HIT_FIELDS = [
  'id', 'full_name', 'username', 'network_url', 'current_title', 'current_company', 'current_company_id', 'seniority', 'geo_city',
  'geo_country_code', 'education_schools', 'past_companies', 'fetched_at',
] as const;

/** The light profile of a candidate, from its record (the record's own values). */
export function personHit(record: Record<string, unknown>): PersonSearchHit {
  return Object.fromEntries(HIT_FIELDS.map((f) => [f, record[f] ?? (f === 'education_schools' || f === 'past_companies' ? [] : null)])) as PersonSearchHit;
}
