/**
 * "One lookup costs one indexed query": every identifier a record can be looked up or withdrawn by
 * has an index. With sequential scans disabled the planner still falls back to one when no index
 * fits, so a missing index shows up as a Seq Scan here whatever the table's size.
 */
import { useHarness } from '../../helpers/harness';
import { onCitus } from '../../helpers/clusterDatabase';

const h = useHarness();

async function planOf(sql: string, value: string | number): Promise<string[]> {
  return h.knex.transaction(async (trx) => {
    await trx.raw('set local enable_seqscan = off');
    const { rows } = await trx.raw(`explain (format json) ${sql}`, [value]);
    const nodes: string[] = [];
    const walk = (n: { 'Node Type': string; Plans?: unknown[] }) => {
      nodes.push(n['Node Type']);
      (n.Plans as (typeof n)[] | undefined)?.forEach(walk);
    };
    walk(rows[0]['QUERY PLAN'][0].Plan);
    return nodes;
  });
}

// The plans judged here are one PostgreSQL's. On the distributed layout (npm run test:citus:suite)
// the coordinator's plan is a Citus Custom Scan and each shard plans its own part, so these cannot
// pass there as written; the routing has its own EXPLAIN gate (test/citus/distributed.test.ts,
// docs/scale-out.md).
(onCitus() ? describe.skip : describe)('lookup indexes', () => {
  it.each([
    ['persons', 'id', '3f6c2a9e-8b1d-4c7a-9e52-1d0b7a4c6e21'],
    ['persons', 'username', 'priya-raman'],
    ['persons', 'network_id', '412908337'],
    ['persons', 'network_urn', 'ACoAABiZ2fE'],
    ['companies', 'id', '9b2e4f10-6c3a-4d8e-b71f-2a5c9e0d4b73'],
    ['companies', 'username', 'northwind-analytics'],
    ['companies', 'company_id', '18234567'],
    ['suppressions', 'digest', 'ab'.repeat(32)],
  ])('%s by %s uses an index', async (table, column, value) => {
    const nodes = await planOf(`select * from ${table} where ${column} = ?`, value);
    expect(nodes).not.toContain('Seq Scan');
    expect(nodes.some((n) => /Index/.test(n))).toBe(true);
  });

  it.each([
    ['current employees of a company', 'select * from persons where current_company_id = ?', 18234567],
    ['positions at a company', 'select * from person_positions where company_id = ? and is_current = false', 18234567],
    ['alumni of a school', 'select * from person_educations where lower(school_name) = ?', 'university of texas at austin'],
    ['recent job changes', 'select * from persons where changed_employer and current_started_on >= ?', '2026-06-01'],
  ])('%s uses an index', async (_name, sql, value) => {
    expect(await planOf(sql, value)).not.toContain('Seq Scan');
  });
});
