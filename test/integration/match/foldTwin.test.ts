/**
 * The SQL rules candidate search indexes on and their TypeScript twins (domain/match/normalize.ts)
 * give the same answers: `lake_fold` = `fold`, `lake_name_key` = `nameKey`, `lake_company_key` =
 * `companyKey`, `lake_web_host` = `webHost` (migration 20261208000100_match). A query normalised in
 * TypeScript must meet the key PostgreSQL stored.
 */
import { companyKey, fold, nameKey, webHost, COMPANY_ABBREVIATIONS, LEGAL_WORDS } from '../../../src/domain/match/normalize';
import { COMPANY_KEY_ABBREVIATIONS as MATCH_ABBREVIATIONS, COMPANY_KEY_LEGAL_WORDS as MATCH_LEGAL_WORDS } from '../../../src/db/migrations/20261211000400_match_company_key_forms';
import { useHarness } from '../../helpers/harness';

const h = useHarness();

const NAMES = [
  'José Álvarez-Núñez', 'Ørjan Łukasz Strauß', "O'Brien, Æsa", 'Zoë Saldaña Jr.', 'François-Xavier de la Tour', 'Dr. Jane Q. Doe PhD',
  'Đorđe Þórsson', 'Œdipe Ĳssel', 'Nguyễn Thị Minh Khai', 'Bjørn   Ångström', 'Çağrı Şahin', 'ŽOFIE ČERNÁ', 'Jürgen Müller-Lüdenscheidt III',
  'anna-maria 2nd', '  trailing  spaces  ', 'İlker Iğdır',
];
const COMPANIES = [
  'Acme Corp.', 'ACME Corporation', 'The Acme Company, Inc.', 'Smith & Sons Intl GmbH', 'Müller Technik AG', 'Société Générale S.A.',
  'Northwind Analytics LLC', 'Globex Tech Ltd', 'The Company', 'Labs', 'Nestlé Nespresso SA', 'A&B Mfg. Co.',
  'Deck College S.L.', 'deck college sl.', 'Dhawan Estates Private Limited', 'Overload Networks, Pvt Ltd', 'Santos Infotech Ltda',
  'Walker Cons.', 'Hello Ins. GmbH', 'J. P. Morgan & Co.', 'Private Equity Partners', 'S.p.A.', 'A B C', 'Private',
];
const WEBSITES = ['https://www.acme.com/', 'http://Acme.co.uk/about?x=1', 'www.globex.io', 'eu.initech.com:8443/path#x', 'acme.com.', 'HTTPS://WWW.EXAMPLE.ORG'];

async function sql(fn: string, values: string[]): Promise<(string | null)[]> {
  const { rows } = await h.knex.raw(`select ${fn}(v) as r from unnest(?::text[]) with ordinality u(v, i) order by i`, [values]);
  return rows.map((r: { r: string | null }) => r.r);
}

describe('the SQL twins of the match rules', () => {
  it('lake_fold = fold', async () => {
    expect(await sql('lake_fold', NAMES)).toEqual(NAMES.map(fold));
  });

  it('lake_name_key = nameKey', async () => {
    expect(await sql('lake_name_key', NAMES)).toEqual(NAMES.map(nameKey));
  });

  it('lake_company_key = companyKey, and the two keep the same word lists', async () => {
    expect(await sql('lake_company_key', COMPANIES)).toEqual(COMPANIES.map(companyKey));
    expect([...MATCH_LEGAL_WORDS].sort()).toEqual([...LEGAL_WORDS].sort());
    expect(MATCH_ABBREVIATIONS).toEqual(COMPANY_ABBREVIATIONS);
  });

  it('lake_web_host = webHost', async () => {
    expect(await sql('lake_web_host', WEBSITES)).toEqual(WEBSITES.map(webHost));
  });
});
