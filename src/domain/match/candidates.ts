/**
 * Stage 2 of matching: candidates through indexes (blocking). Which arms are asked, in what order,
 * is decided here; the SQL is db/repositories/matchCandidates.ts. A withdrawn subject is never a
 * candidate: withdrawal deletes the record from the lake and takes its subject id out of the change
 * log (lake/suppression.ts), and these arms read nothing else.
 */
import type { Knex } from 'knex';
import {
  findCompaniesByFormerName, findCompaniesByHost, findCompaniesByNameKey, findCompaniesBySimilarName, findCompanyRecordTexts,
  findPersonCandidatesAndEmployers, findPersonsByTrigram, type CompanyRef,
} from '../../db/repositories/matchCandidates';
import { compareName, type PersonCandidate, type PersonQuery, type ResolvedEmployers } from './compare';
import { fold, localWords } from './normalize';

export interface FoundPerson {
  /** The record, parsed on first use (only candidates whose name agrees are: person.ts). */
  readonly candidate: PersonCandidate;
  /** What the name comparisons read of the record (compareName, compareEmailLocal: recordName). */
  readonly name: NameFields;
  /** The record as served (JSON text). */
  text: string;
}

export type NameFields = Pick<PersonCandidate, 'id' | 'full_name' | 'first_name' | 'last_name'>;

/**
 * The names as the candidate the name comparisons take: compareName and compareEmailLocal read the
 * record's names only (recordName, full_name); test/unit/match/nameFields.test.ts fails if either
 * reads another field.
 */
export const asCandidate = (name: NameFields): PersonCandidate => name as PersonCandidate;

const STRING = '"(?:[^"\\\\]|\\\\.)*"';
/**
 * A record's text begins with its id and names (the lake's records are written so: id, full_name,
 * first_name, last_name, as the first keys of the top-level object). Read from there, they spare
 * parsing the whole record (4.7 KB on average in the bench's lake; 35 candidates a match, most of
 * them namesakes of the key whose first name disagrees) for a candidate whose name rules it out.
 * Anchored at the text's start, the keys are the top level's; a record written otherwise is parsed.
 */
const NAMES_AT_START = new RegExp(`^\\{"id":(${STRING}),"full_name":(${STRING}),"first_name":(null|${STRING}),"last_name":(null|${STRING})[,}]`);

class Found implements FoundPerson {
  private parsed: PersonCandidate | undefined;
  readonly name: NameFields;
  constructor(readonly text: string) {
    const m = NAMES_AT_START.exec(text);
    this.name = m
      ? { id: JSON.parse(m[1]!), full_name: JSON.parse(m[2]!), first_name: JSON.parse(m[3]!), last_name: JSON.parse(m[4]!) }
      : this.candidate;
  }

  get candidate(): PersonCandidate {
    return (this.parsed ??= JSON.parse(this.text) as PersonCandidate);
  }
}

const MAX_KEYS = 6;

/** Name keys of the query: the words of its name, or of the email's local part with its usual patterns (jdoe, doej). */
export function personKeys(q: PersonQuery): { keys: string[]; name: string } {
  const keys = new Set<string>();
  let name = '';
  if (q.name) {
    for (const t of q.name.tokens) if (t.length >= 2) keys.add(t);
    name = q.name.tokens.join(' ');
  }
  if (q.email) {
    const w = localWords(q.email.local);
    for (const t of w) if (t.length >= 2) keys.add(t);
    if (w.length === 1 && w[0]!.length >= 4) {
      keys.add(w[0]!.slice(1)); // jdoe → doe
      keys.add(w[0]!.slice(0, -1)); // doej → doe
    }
    if (name === '') name = w.join(' ');
  }
  return { keys: [...keys].slice(0, MAX_KEYS), name: fold(name) };
}

/** The employer's domain: the company domain, else a work email's domain. */
const employerDomain = (q: PersonQuery) => q.companyDomain ?? (q.email && !q.email.freeMail ? q.email.domain : null);

const idsOf = (refs: readonly CompanyRef[]) => new Set(refs.map((r) => r.company_id));

/** The employers the query names, as company IDs of the lake. */
export async function resolveEmployers(db: Knex, q: PersonQuery): Promise<ResolvedEmployers> {
  const domain = employerDomain(q);
  const [byName, byFormerName, byDomain] = await Promise.all([
    q.company ? findCompaniesByNameKey(db, q.company) : [],
    q.company ? findCompaniesByFormerName(db, q.company) : [],
    domain ? findCompaniesByHost(db, [domain]) : [],
  ]);
  return { byName: idsOf(byName), byFormerName: idsOf(byFormerName), byDomain: idsOf(byDomain) };
}

/** The candidates of a person query, and the employers it resolved to. */
export async function findPersonCandidates(db: Knex, q: PersonQuery): Promise<{ resolved: ResolvedEmployers; found: FoundPerson[] }> {
  const domain = employerDomain(q);
  const { keys, name } = personKeys(q);
  // One round trip: the employers and the name-key arms at them and anywhere (matchCandidates.ts).
  const rows = await findPersonCandidatesAndEmployers(db, {
    company: q.company, hosts: domain ? [domain] : [], companyIds: q.companyId ? [q.companyId] : [], keys, name,
  });
  const resolved = { byName: idsOf(rows.byName), byFormerName: idsOf(rows.byFormerName), byDomain: idsOf(rows.byDomain) };
  const found = parsed(rows.persons);
  // Typos in the last name: the trigram index, only when no candidate's name agrees already; at the
  // employers the query resolved to when it resolved some, anywhere only when it resolved none. A
  // person with a typo in the name is then looked for where the query says they work: the arm
  // anywhere (a GIN scan of every name sharing the query's trigrams: at 1M the slowest statement of
  // matching, p95 44 ms) would add people at other employers, whom only the name ties to the query
  // (the company disagrees), and never the answer for the employer asked.
  const agrees = q.name ? found.some((f) => ['exact', 'nickname', 'close'].includes(compareName(q.name!, asCandidate(f.name)).level)) : found.length > 0;
  if (!agrees && name.length >= 3) {
    const companyIds = [...new Set([...resolved.byName, ...resolved.byFormerName, ...resolved.byDomain, ...(q.companyId ? [q.companyId] : [])])];
    const seen = new Set(found.map((f) => f.name.id));
    found.push(...parsed((await findPersonsByTrigram(db, name, companyIds, { anywhere: companyIds.length === 0 })).filter((r) => !seen.has(r.id))));
  }
  return { resolved, found };
}

/** A found record from its served text. */
export const foundPerson = (text: string): FoundPerson => new Found(text);

const parsed = (rows: readonly { record: string }[]): FoundPerson[] => rows.map((row) => new Found(row.record));

export interface CompanyCandidateRecord {
  id: string;
  company_id: string;
  name: string;
  website: string | null;
  hq_city: string | null;
  hq_country: string | null;
  hq_country_code: string | null;
  hq_geographic_area?: string | null;
}

export interface FoundCompany {
  candidate: CompanyCandidateRecord;
  text: string;
  /** Former names of the company that the query's name matched. */
  formerNames: string[];
}

/** Candidates of a company query: by domain, by name key, by similar names, by former names. */
export async function findCompanyCandidates(db: Knex, q: { domain: string | null; name: string | null }): Promise<FoundCompany[]> {
  const [byHost, byKey, bySimilar, byFormer] = await Promise.all([
    q.domain ? findCompaniesByHost(db, [q.domain]) : [],
    q.name ? findCompaniesByNameKey(db, q.name) : [],
    q.name ? findCompaniesBySimilarName(db, q.name) : [],
    q.name ? findCompaniesByFormerName(db, q.name) : [],
  ]);
  const former = new Map<string, string[]>();
  for (const f of byFormer) former.set(f.id, [...(former.get(f.id) ?? []), f.former_name]);
  const ids = [...new Set([...byHost, ...byKey, ...bySimilar, ...byFormer].map((r) => r.id))];
  const rows = await findCompanyRecordTexts(db, ids);
  return rows.map((row) => ({ text: row.record, candidate: JSON.parse(row.record) as CompanyCandidateRecord, formerNames: former.get(row.id) ?? [] }));
}
