/**
 * Candidate search uses an index: every statement matching issues on a lake table (persons,
 * companies, the change log's renames) is explained with its own bindings, with sequential scans
 * disabled on the explaining connection (as in the read mix's EXPLAIN gate): the planner then falls
 * back to a Seq Scan only when no index fits, so a missing or unusable index fails here whatever
 * the table's size. An index node must also have an index condition (no walk of a whole index).
 * Every arm is exercised: name key at employers and anywhere, trigrams (a typo), email and domain,
 * company by host, name key, similar names and former name.
 */
import pg from 'pg';
import { captureStatements, type Statement } from '../../../bench/readMix';
import { matchCompany } from '../../../src/domain/match/company';
import { matchPerson } from '../../../src/domain/match/person';
import { AppError } from '../../../src/domain/errors';
import { onCitus } from '../../helpers/clusterDatabase';
import { useLakeWorld, SHARED_WORLD } from '../../helpers/lakeWorld';

let explainer: pg.Client;
afterAll(() => explainer?.end());
const lw = useLakeWorld({ world: SHARED_WORLD });
beforeAll(async () => {
  explainer = new pg.Client({ connectionString: lw.url, application_name: 'match-explain' });
  explainer.on('error', () => undefined);
  await explainer.connect();
  await explainer.query('set enable_seqscan = off');
});

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Index Cond'?: string;
  Plans?: PlanNode[];
}
const nodesOf = (n: PlanNode, out: PlanNode[] = []): PlanNode[] => (out.push(n), (n.Plans ?? []).forEach((c) => nodesOf(c, out)), out);
const LAKE = /\b(persons|companies|change_log)\b/;

async function problems(statements: Statement[]): Promise<string[]> {
  const out: string[] = [];
  for (const s of statements) {
    // Several statements sent as one simple query (the trigram arm: a setting for the transaction,
    // set_config(..., true), then the read it applies to): each read is explained in a transaction
    // under the settings before it.
    const parts = s.sql.split(/;\n/);
    const settings = parts.filter((p) => /^\s*select set_config\(/i.test(p));
    for (const [k, sql] of parts.entries()) {
      if (settings.includes(sql)) continue;
      if (!LAKE.test(sql) || !/^\s*(select|with|\()/i.test(sql)) continue;
      const before = parts.slice(0, k).filter((p) => settings.includes(p));
      if (before.length) await explainer.query(`begin; ${before.join(';\n')}`);
      const { rows } = await explainer.query(`explain (format json) ${sql}`, s.bindings).finally(() => (before.length ? explainer.query('rollback') : undefined));
      out.push(...planProblems(rows, s.sql));
    }
  }
  return out;
}

function planProblems(rows: { 'QUERY PLAN': unknown }[], sqlText: string): string[] {
  const out: string[] = [];
  const nodes = nodesOf((rows[0]!['QUERY PLAN'] as { Plan: PlanNode }[])[0]!.Plan);
  for (const n of nodes) {
    if (n['Node Type'] === 'Seq Scan' && LAKE.test(n['Relation Name'] ?? '')) out.push(`Seq Scan on ${n['Relation Name']}: ${sqlText}`);
    if (/Index/.test(n['Node Type']) && n['Index Name'] && !n['Index Cond']) out.push(`${n['Node Type']} of ${n['Index Name']} without a condition: ${sqlText}`);
  }
  return out;
}

async function explained(fn: () => Promise<unknown>): Promise<{ statements: Statement[]; problems: string[] }> {
  const statements = await captureStatements(lw.h.knex, async () => {
    try {
      await fn();
    } catch (e) {
      if (!(e instanceof AppError) || e.code !== 'NO_MATCH') throw e;
    }
  });
  return { statements, problems: await problems(statements) };
}

(onCitus() ? describe.skip : describe)('candidate search plans', () => {
  it('uses an index for every arm of person and company matching', async () => {
    const p = lw.persons.find((x) => x.current_company && x.current_company_id && x.last_name && x.last_name.length >= 5)!;
    const company = lw.companies.find((c) => String(c.company_id) === String(p.current_company_id))!;
    const domain = company.website ? new URL(company.website.startsWith('http') ? company.website : `https://${company.website}`).hostname.replace(/^www\./, '') : 'example.com';
    const typo = `${p.last_name!.slice(0, 2)}${p.last_name![3]}${p.last_name![2]}${p.last_name!.slice(4)}`;
    // A rename, as the lake records it (a new copy under another name): the change log's arm.
    const other = lw.companies.find((c) => c.id !== company.id)!;
    await lw.addCompanies({ ...other, name: `${other.name} Renamed` });
    const renamed = await lw.h.knex('change_log').where({ kind: 'company', event: 'company.name_changed' }).whereNotNull('subject_id').first();
    const runs = [
      () => matchPerson(lw.h.knex, { name: p.full_name, company: p.current_company! }),
      () => matchPerson(lw.h.knex, { name: p.full_name, company_id: String(p.current_company_id) }),
      () => matchPerson(lw.h.knex, { name: `${p.first_name} ${typo}`, company: p.current_company! }),
      () => matchPerson(lw.h.knex, { name: `${p.first_name} ${typo}`, location: 'Nowhere' }),
      () => matchPerson(lw.h.knex, { email: `${p.first_name![0]}${p.last_name}@${domain}`.toLowerCase() }),
      () => matchPerson(lw.h.knex, { name: p.full_name, company_domain: domain }),
      () => matchCompany(lw.h.knex, { domain }),
      () => matchCompany(lw.h.knex, { name: company.name, location: company.hq_city ?? 'x' }),
      () => matchCompany(lw.h.knex, { name: `${company.name.slice(0, -1)}x` }),
      () => matchCompany(lw.h.knex, { name: renamed ? String(renamed.diff.old_name) : 'Former Name Inc' }),
    ];
    const all: string[] = [];
    const byRun: string[][] = [];
    for (const run of runs) {
      const r = await explained(run);
      expect(r.problems).toEqual([]);
      all.push(...r.statements.map((s) => s.sql));
      byRun.push(r.statements.map((s) => s.sql));
    }
    // A typo with an employer the lake knows: trigrams at the employer only (the arm anywhere reads
    // every name sharing the query's trigrams); with a location only (no employer): anywhere.
    const trigramReads = (sqls: string[]) => sqls.flatMap((sql) => sql.split(/;\n/)).filter((sql) => /lake_trgm_name\(full_name\) %/.test(sql));
    expect(trigramReads(byRun[2]!).map((sql) => /current_company_id = any/.test(sql))).toEqual([true]);
    expect(trigramReads(byRun[3]!).map((sql) => /current_company_id = any/.test(sql))).toEqual([false]);
    // Every arm was among them: name key with and without employers, trigrams, hosts, company keys, renames.
    for (const arm of [/current_company_id = any/, /lake_name_key\(full_name\) = any/, /lake_trgm_name\(full_name\) %/, /lake_web_host/, /lake_company_key\(name\) = /, /lake_company_key\(name\) %/, /change_log/]) {
      expect([String(arm), all.some((sql) => arm.test(sql))]).toEqual([String(arm), true]);
    }
    expect(renamed).toBeDefined();
  });

  it('fails a statement that can only scan persons (the check can fail)', async () => {
    expect(await problems([{ sql: "select id from persons where record->>'headline' = $1", bindings: ['x'], via: 'test' }])).toHaveLength(1);
  });
});
