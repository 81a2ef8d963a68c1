/**
 * Migration 20261203000200_count_index_only: the bounded counts of industry + seniority (people
 * search) and of a school's alumni can be answered by an index-only scan. Before it they could
 * not: an index on lower(x) serves an index-only scan only if x is in the index too. Bitmap and
 * sequential scans are disabled on the explaining transaction, so the planner shows whether an
 * index-only scan is possible at all, whatever the size of the test world.
 */
import type { Knex } from 'knex';
import { STAFF_WORLD } from '../../helpers/companyStaff';
import { useLakeWorld } from '../../helpers/lakeWorld';
import { onCitus } from '../../helpers/clusterDatabase';

const lw = useLakeWorld({ world: STAFF_WORLD });

async function nodesOf(sql: string, bindings: Knex.RawBinding[]): Promise<string[]> {
  return lw.h.knex.transaction(async (trx) => {
    await trx.raw('set local enable_seqscan = off');
    await trx.raw('set local enable_bitmapscan = off');
    const { rows } = await trx.raw(`explain (format json) ${sql}`, bindings);
    const nodes: string[] = [];
    const walk = (n: { 'Node Type': string; 'Index Name'?: string; Plans?: unknown[] }) => {
      nodes.push(`${n['Node Type']}${n['Index Name'] ? ` ${n['Index Name']}` : ''}`);
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
(onCitus() ? describe.skip : describe)('counts answered from the index alone', () => {
  it('industry + seniority (the count of POST /people/search)', async () => {
    const nodes = await nodesOf(
      `select count(*) from (select 1 from persons p where lower(p.current_company_industry) = any(array(select lower(x) from unnest(?::text[]) x))
         and p.seniority in (?, ?) limit 10001) m`,
      [['Computer Software', 'Banking'], 'director', 'vp'],
    );
    expect(nodes).toContain('Index Only Scan persons_seniority_industry');
  });

  it('the alumni of a school (the count of GET /institution/alumni)', async () => {
    const { rows } = await lw.h.knex.raw('select min(school_name) as name from person_educations group by lower(school_name) order by count(*) desc limit 1');
    const nodes = await nodesOf(
      'select count(*) from (select distinct person_id from person_educations where lower(school_name) = lower(?) limit 10001) m',
      [rows[0].name],
    );
    expect(nodes).toContain('Index Only Scan person_educations_school_person');
  });
});
