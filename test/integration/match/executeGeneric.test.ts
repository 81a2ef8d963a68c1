/**
 * The person candidate statement runs prepared under its generic plan (executeGeneric,
 * db/repositories/matchCandidates.ts): on a real PostgreSQL, the same answer as the statement sent
 * with parameters, a connection that lost its prepared statements prepares them again, the plan
 * really is the generic one, and the setting does not outlive the statement on the connection.
 */
import { createKnex, type Knex } from '../../../src/db/knex';
import { executeGeneric, findPersonCandidatesAndEmployers, GENERIC_STATEMENTS } from '../../../src/db/repositories/matchCandidates';
import { matchPerson } from '../../../src/domain/match/person';
import { onCitus } from '../../helpers/clusterDatabase';
import { useLakeWorld, SHARED_WORLD } from '../../helpers/lakeWorld';

const lw = useLakeWorld({ world: SHARED_WORLD });
let knex: Knex;
// One connection: what one statement leaves on it, the next one sees.
beforeAll(() => void (knex = createKnex(lw.url, 1)));
afterAll(() => knex?.destroy());

(onCitus() ? describe.skip : describe)('executeGeneric', () => {
  it('answers as the statement with parameters does, prepares again on a connection that lost it, and leaves no setting behind', async () => {
    const p = lw.persons.find((x) => x.current_company && x.current_company_id && x.last_name)!;
    const search = {
      company: null, hosts: [], companyIds: [String(p.current_company_id)], keys: [p.last_name!.toLowerCase(), 'smith'], name: p.full_name.toLowerCase(),
    };
    const first = await findPersonCandidatesAndEmployers(knex, search);
    expect(first.persons.map((r) => r.id)).toContain(p.id);

    // The same statement with parameters (as it ran before, and runs on the distributed layout).
    const [name, text] = [...GENERIC_STATEMENTS].find(([, t]) => /current_company_id = any/.test(t) && !/by_name as/.test(t))!;
    const { rows } = await knex.raw<{ rows: { arm: string; id: string }[] }>(text.replace(/\$[0-9]+/g, '?'), [search.keys, search.companyIds, search.keys, search.name]);
    expect(first.persons.map((r) => r.id).sort()).toEqual(rows.filter((r) => r.arm === 'person').map((r) => r.id).sort());

    // A connection without the prepared statement (26000): prepared again in the same call.
    await knex.raw('deallocate all');
    const again = await findPersonCandidatesAndEmployers(knex, search);
    expect(again.persons.map((r) => r.id).sort()).toEqual(first.persons.map((r) => r.id).sort());
    const stats = await knex.raw<{ rows: { generic_plans: string; custom_plans: string }[] }>(
      'select generic_plans, custom_plans from pg_prepared_statements where name = ?', [name],
    );
    expect(stats.rows.map((r) => [Number(r.generic_plans) > 0, Number(r.custom_plans)])).toEqual([[true, 0]]);
    // The generic plan was asked for that one implicit transaction only.
    expect((await knex.raw<{ rows: { plan_cache_mode: string }[] }>('show plan_cache_mode')).rows[0]!.plan_cache_mode).toBe('auto');
    // Through the whole match as well.
    const outcome = await matchPerson(knex, { name: p.full_name, company_id: String(p.current_company_id) });
    expect(JSON.parse(outcome.text).id).toBe(p.id);
  });

  it('refuses a statement whose placeholders and values disagree, and passes on other errors', async () => {
    await expect(executeGeneric(knex, 'select ?::text as a, ?::text as b', ['x'])).rejects.toThrow(/2 placeholders, 1 parameters/);
    await expect(executeGeneric(knex, 'select 1 / (?::int - 1) as a', ['1'])).rejects.toMatchObject({ code: '22012' });
    expect((await executeGeneric<{ a: string }>(knex, `select ?::text || 'b' as a`, ["it's"]))).toEqual([{ a: "it'sb" }]);
  });
});
