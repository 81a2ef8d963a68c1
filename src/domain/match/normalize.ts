/**
 * Stage 1 of matching: the caller's values and the record's values brought to one form before they
 * are compared. Pure functions, no database.
 *
 * - `fold`: accents, case and punctuation away. It must agree with the SQL `lake_fold` (PostgreSQL's
 *   `unaccent` + lower + non-alphanumerics to spaces, migration 20261208000100_match) that the
 *   candidate indexes are built on; test/integration/match/foldTwin.test.ts ties the two on names
 *   with accents, ligatures and punctuation. A small fold rather than a transliteration library:
 *   what matters is the same answer as `unaccent` on the index side, which NFKD plus the letters
 *   `unaccent` maps by itself (ß, æ, ø, ł, đ, þ, œ) gives.
 * - names: parse-full-name splits "Doe, Jane Q." and strips titles and suffixes.
 * - companies: legal suffixes, "&"/"and", "the" and a few abbreviations away; the SQL twin is
 *   `lake_company_key` (same migration, tied by the same test).
 * - domains: tldts gives the registrable domain (www.acme.co.uk → acme.co.uk) by the public suffix list.
 */
import { parseFullName } from 'parse-full-name';
import { getDomain, parse as parseHost } from 'tldts';
import { NICKNAME_GROUPS } from './nicknameData';
import { GIVEN_NAMES } from './givenNameData';

const SPECIAL: Record<string, string> = {
  ß: 'ss', æ: 'ae', Æ: 'ae', ø: 'o', Ø: 'o', ł: 'l', Ł: 'l', đ: 'd', Đ: 'd', þ: 'th', Þ: 'th', œ: 'oe', Œ: 'oe', ı: 'i',
};
const SPECIAL_RE = /[ßæÆøØłŁđĐþÞœŒı]/g;

/** Lower-case ASCII letters and digits, words separated by one space. */
export function fold(text: string): string {
  return text
    .replace(SPECIAL_RE, (c) => SPECIAL[c] ?? c)
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, ' ')
    .trim();
}

export const words = (text: string): string[] => {
  const f = fold(text);
  return f === '' ? [] : f.split(' ');
};

// ---------------------------------------------------------------- names

/** A person's name, folded: first and last name (last may hold several words), middle words. */
export interface PersonName {
  first: string | null;
  last: string | null;
  middle: string[];
  /** Every word of the name (first, middle, last), for blocking keys and order-free comparison. */
  tokens: string[];
}

const NAME_SUFFIXES = new Set(['jr', 'sr', 'ii', 'iii', 'iv', 'phd', 'md', 'mba', 'cpa', 'pmp', 'esq', 'dds', 'msc', 'bsc']);
const NAME_TITLES = new Set(['mr', 'mrs', 'ms', 'miss', 'dr', 'prof', 'sir', 'dame']);

const cleanTokens = (text: string) => words(text).filter((w) => !NAME_SUFFIXES.has(w));

/** A full name as typed in a list ("Jane Q. Doe", "Doe, Jane", "Dr. Jane Doe Jr."). */
export function parseName(full: string): PersonName {
  const parsed = parseFullName(full.trim(), 'all', 1, 0, 0);
  let first = words(parsed.first ?? '').join(' ');
  let last = cleanTokens(parsed.last ?? '').join(' ');
  const middle = words(parsed.middle ?? '');
  if (NAME_TITLES.has(first)) first = '';
  // parse-full-name puts a lone word in `last`? it gives it as first: keep it as the one word we have.
  if (first === '' && last === '') {
    const all = cleanTokens(full).filter((w) => !NAME_TITLES.has(w));
    return fromParts(all[0] ?? null, all.length > 1 ? all[all.length - 1]! : null, all.slice(1, -1));
  }
  return fromParts(first || null, last || null, middle);
}

export function nameFromParts(first: string | null | undefined, last: string | null | undefined): PersonName {
  const f = first ? words(first) : [];
  const l = last ? cleanTokens(last) : [];
  return fromParts(f[0] ?? null, l.length ? l.join(' ') : null, f.slice(1));
}

function fromParts(first: string | null, last: string | null, middle: string[]): PersonName {
  const tokens = [...(first ? first.split(' ') : []), ...middle, ...(last ? last.split(' ') : [])].filter((t) => t !== '');
  return { first: first || null, last: last || null, middle, tokens };
}

/** The record's name: its own first and last name fields when set, else its full name parsed. */
export function recordName(record: { full_name: string; first_name: string | null; last_name: string | null }): PersonName {
  if (record.first_name && record.last_name) return nameFromParts(record.first_name, record.last_name);
  return parseName(record.full_name);
}

/**
 * The blocking key of a name, as the SQL `lake_name_key(full_name)` computes it for the index: the
 * last word of the folded full name that is not a suffix (Jr, PhD...). A query looks up every word
 * of its name (so a swapped first and last name still meets its key).
 */
export function nameKey(fullName: string): string | null {
  const t = cleanTokens(fullName);
  return t.length ? t[t.length - 1]! : null;
}

// ---------------------------------------------------------------- nicknames

let nicknameIndex: Map<string, Set<string>> | undefined;

/** name → the names it is a nickname of or has as nicknames (both directions), from nicknameData.ts. */
function nicknames(): Map<string, Set<string>> {
  if (nicknameIndex) return nicknameIndex;
  const index = new Map<string, Set<string>>();
  const link = (a: string, b: string) => {
    const set = index.get(a) ?? new Set<string>();
    set.add(b);
    index.set(a, set);
  };
  for (const group of NICKNAME_GROUPS.split(';')) {
    const [name, list] = group.split(':');
    if (!name || !list) continue;
    for (const nick of list.split(',')) {
      link(name, nick);
      link(nick, name);
    }
  }
  nicknameIndex = index;
  return index;
}

/** Whether two folded first names are the same person's by a known nickname (Bob, Robert). */
export function isNickname(a: string, b: string): boolean {
  if (a === b) return false;
  const n = nicknames();
  if (n.get(a)?.has(b)) return true;
  // Two nicknames of one name (Bob, Rob: both Robert's).
  const aa = n.get(a);
  const bb = n.get(b);
  if (!aa || !bb) return false;
  for (const x of aa) if (bb.has(x) && n.get(x)?.has(a) && n.get(x)?.has(b)) return true;
  return false;
}

let givenNameIndex: Set<string> | undefined;

/**
 * Whether a folded word is a known given name (data/given-names.txt: 8,403 given names of English
 * speaking countries, public domain; nicknames of the nickname table count too). Two distinct
 * known names one letter apart (Gina / Gino, Mark / Mary) are two names, not a typo of one.
 */
export function isGivenName(word: string): boolean {
  if (!givenNameIndex) {
    givenNameIndex = new Set(GIVEN_NAMES.split(' '));
    for (const [name, nicks] of nicknames()) {
      givenNameIndex.add(name);
      for (const n of nicks) givenNameIndex.add(n);
    }
  }
  return givenNameIndex.has(word);
}

/** The first names a folded first name may stand for (itself and its nickname relatives). */
export function firstNameVariants(first: string): string[] {
  return [first, ...(nicknames().get(first) ?? [])];
}

// ---------------------------------------------------------------- companies

/** Legal forms and filler words that do not tell companies apart. */
const LEGAL = new Set([
  'inc', 'incorporated', 'corp', 'corporation', 'co', 'company', 'llc', 'ltd', 'limited', 'plc', 'gmbh', 'ag', 'kg', 'sa', 'sas',
  'sarl', 'srl', 'spa', 'bv', 'nv', 'oy', 'oyj', 'ab', 'as', 'asa', 'aps', 'kk', 'pty', 'pte', 'lp', 'llp', 'pc', 'se', 'sl',
  'the', 'and',
  // Added by migration 20261211000400 (its SQL twin): Brazil's Ltda, India's Pvt.
  'ltda', 'pvt',
]);
const ABBREVIATIONS: Record<string, string> = {
  intl: 'international', tech: 'technologies', technology: 'technologies', sys: 'systems', svcs: 'services', mfg: 'manufacturing',
  assoc: 'associates', bros: 'brothers', natl: 'national', grp: 'group', hldgs: 'holdings', labs: 'laboratories', lab: 'laboratories',
  ctr: 'center', centre: 'center', univ: 'university', mgmt: 'management',
  // Added by migration 20261211000400.
  sol: 'solutions', fin: 'financial', ins: 'insurance', comms: 'communications', hc: 'healthcare', inv: 'investments',
  cons: 'consulting',
};

/** Runs of one-letter words joined into one word: "s l" -> "sl", "j p morgan" -> "jp morgan". */
function joinInitials(ws: readonly string[]): string[] {
  const out: string[] = [];
  let single = false;
  for (const w of ws) {
    if (w.length === 1 && single) out[out.length - 1] += w;
    else out.push(w);
    single = w.length === 1;
  }
  return out;
}

/**
 * A company name as compared and indexed: folded, `&` as a word boundary, a run of single letters
 * one word ("S.L." = "SL", "B.V." = "BV": else a dotted legal form stays as letters), legal forms and
 * fillers removed, common abbreviations spelt out ("Acme Corp." = "ACME Corporation" = "acme"). The SQL
 * twin `lake_company_key` applies the same lists (tied by test/integration/match/foldTwin.test.ts).
 */
export function companyKey(name: string): string {
  const ws = joinInitials(words(name.replace(/&/g, ' and ')));
  const w = ws
    .map((x) => ABBREVIATIONS[x] ?? x)
    // "Private Limited" is one legal form (India): "private" goes only before limited / ltd.
    .filter((x, i) => !LEGAL.has(x) && !(x === 'private' && (ws[i + 1] === 'limited' || ws[i + 1] === 'ltd')));
  // A name made only of fillers ("The Company") keeps its words.
  return w.length ? w.join(' ') : words(name).join(' ');
}

export const LEGAL_WORDS: readonly string[] = [...LEGAL];
export const COMPANY_ABBREVIATIONS: Readonly<Record<string, string>> = ABBREVIATIONS;

// ---------------------------------------------------------------- domains and emails

/** Mail providers whose addresses say nothing about an employer. */
const FREE_MAIL = new Set([
  'gmail.com', 'googlemail.com', 'yahoo.com', 'yahoo.co.uk', 'yahoo.fr', 'ymail.com', 'outlook.com', 'hotmail.com', 'hotmail.co.uk',
  'hotmail.fr', 'live.com', 'msn.com', 'icloud.com', 'me.com', 'mac.com', 'aol.com', 'protonmail.com', 'proton.me', 'pm.me',
  'gmx.com', 'gmx.de', 'gmx.net', 'web.de', 't-online.de', 'yandex.ru', 'yandex.com', 'mail.ru', 'qq.com', '163.com', '126.com',
  'zoho.com', 'fastmail.com', 'hey.com', 'tutanota.com', 'orange.fr', 'free.fr', 'laposte.net', 'libero.it', 'seznam.cz',
  'wp.pl', 'o2.pl', 'naver.com', 'rediffmail.com', 'comcast.net', 'verizon.net', 'att.net', 'sbcglobal.net', 'btinternet.com',
]);

export const isFreeMailDomain = (domain: string) => FREE_MAIL.has(domain);

/**
 * The registrable domain of a website URL or a bare domain ("https://www.acme.co.uk/about" →
 * "acme.co.uk"), or null when the text is not a public domain name (no known suffix, an IP address).
 */
export function registrableDomain(text: string): string | null {
  const t = text.trim().toLowerCase();
  if (t === '' || /\s/.test(t)) return null;
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//.test(t) ? t : `http://${t}`;
  const parsed = parseHost(withScheme);
  if (parsed.isIp || !parsed.isIcann || !parsed.domain) return null;
  return getDomain(withScheme);
}

/** The host of a website as stored, without `www.` (what the SQL `lake_web_host` indexes). */
export function webHost(text: string): string | null {
  const m = /^(?:[a-z][a-z0-9+.-]*:\/\/)?([^/?#:]+)/i.exec(text.trim());
  if (!m) return null;
  const host = m[1]!.toLowerCase().replace(/^www\./, '').replace(/\.$/, '');
  return host === '' ? null : host;
}

export interface Email {
  local: string;
  /** The registrable domain, or null when it is not one. */
  domain: string | null;
  freeMail: boolean;
}

export function parseEmail(text: string): Email | null {
  const t = text.trim().toLowerCase();
  const at = t.lastIndexOf('@');
  if (at < 1 || at === t.length - 1) return null;
  const local = t.slice(0, at).replace(/\+.*$/, '');
  const domain = registrableDomain(t.slice(at + 1));
  if (local === '' || domain === null) return null;
  return { local, domain, freeMail: isFreeMailDomain(domain) };
}

/** The words of an email's local part ("jane.doe_2" → ["jane", "doe"]). */
export const localWords = (local: string): string[] => fold(local.replace(/[0-9]+/g, ' ')).split(' ').filter((w) => w !== '');

// ---------------------------------------------------------------- titles and places

const TITLE_ABBREVIATIONS: Record<string, string> = {
  vp: 'vice president', svp: 'senior vice president', evp: 'executive vice president', avp: 'assistant vice president',
  sr: 'senior', snr: 'senior', jr: 'junior', mgr: 'manager', dir: 'director', eng: 'engineer', engr: 'engineer', dev: 'developer',
  ceo: 'chief executive officer', cto: 'chief technology officer', cfo: 'chief financial officer', coo: 'chief operating officer',
  cmo: 'chief marketing officer', cio: 'chief information officer', cpo: 'chief product officer', hr: 'human resources',
  swe: 'software engineer', pm: 'product manager', acct: 'account', exec: 'executive', mktg: 'marketing', ops: 'operations',
  assoc: 'associate', asst: 'assistant', admin: 'administrator', rep: 'representative', head: 'head', lead: 'lead',
};
const TITLE_FILLERS = new Set(['of', 'and', 'the', 'for', 'at', 'in']);

/** A job title's words, abbreviations spelt out, fillers away ("Sr. VP, Sales" → senior vice president sales). */
export function titleWords(title: string): string[] {
  return words(title.replace(/&/g, ' and '))
    .flatMap((w) => (TITLE_ABBREVIATIONS[w] ?? w).split(' '))
    .filter((w) => !TITLE_FILLERS.has(w));
}

/** Country names people write for the codes records hold (beyond the record's own country name). */
const COUNTRY_ALIASES: Record<string, string> = {
  usa: 'us', 'united states of america': 'us', america: 'us', uk: 'gb', 'great britain': 'gb', england: 'gb', scotland: 'gb',
  wales: 'gb', 'united kingdom': 'gb', deutschland: 'de', holland: 'nl', 'the netherlands': 'nl', espana: 'es', brasil: 'br',
  uae: 'ae', 'south korea': 'kr', korea: 'kr', russia: 'ru', czechia: 'cz', 'czech republic': 'cz', schweiz: 'ch', suisse: 'ch',
};

/** The folded place and, when it names a country by an alias or a code, that ISO code. */
export function placeOf(text: string): { folded: string; countryCode: string | null } {
  const folded = fold(text);
  const alias = COUNTRY_ALIASES[folded];
  const code = alias ?? (/^[a-z]{2}$/.test(folded) ? folded : null);
  return { folded, countryCode: code };
}
