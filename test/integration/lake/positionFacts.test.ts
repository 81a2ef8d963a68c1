/**
 * lake_position_facts (migration 20261203000100_import_position_facts), the one pass over a
 * person's positions that the lake writer uses, gives what the rule functions it restates give,
 * record for record, on the shapes of work history that tell the rules apart (the bench world's
 * records are checked too: `npm run bench:position-facts`).
 */
import { useHarness } from '../../helpers/harness';
import { NEW_FACTS as NEW, OLD_FACTS as OLD } from '../../../bench/positionFactsSql';

const h = useHarness();

type P = { companyId?: string | null; companyName?: string; title?: string; isCurrent?: boolean | null; startYear?: number; startMonth?: number };
const pos = (companyId: string | null | undefined, isCurrent: boolean | null | undefined, more: Partial<P> = {}): P => ({
  companyId,
  companyName: `Company ${companyId ?? 'none'}`,
  title: 'Engineer',
  isCurrent,
  startYear: 2020,
  startMonth: 3,
  ...more,
});

const cases: [string, object][] = [
  ['no positions', { positions: [] }],
  ['positions missing', {}],
  ['only current positions, two employers', { positions: [pos('1', true), pos('2', true, { startYear: 2019 })] }],
  [
    'current at A, past at A, B twice, one without an ID, a non-numeric and an out-of-range ID, then C',
    {
      positions: [
        pos('10', true),
        pos('10', false, { startYear: 2018 }),
        pos('20', false, { startYear: 2017 }),
        pos('20', false, { startYear: 2015 }),
        pos(null, false, { startYear: 2014 }),
        pos('abc', false, { startYear: 2013 }),
        pos('1234567890123456789', false, { startYear: 2012 }),
        pos('30', false, { startYear: 2011 }),
      ],
    },
  ],
  ['the first position is not current, a later one is', { positions: [pos('1', false, { startYear: 2022 }), pos('2', true, { startYear: 2021, startMonth: 7 })] }],
  ['isCurrent missing or null counts as past', { positions: [pos('1', undefined), pos('2', null), pos('3', true)] }],
  ['job change by name when an ID is missing (case does not matter)', { positions: [pos(null, true, { companyName: 'ACME' }), pos('5', false, { companyName: 'acme' })] }],
  ['job change by name, different names', { positions: [pos(null, true, { companyName: 'Initech' }), pos('5', false, { companyName: 'Acme' })] }],
  ['same employer by ID, new title and name', { positions: [pos('7', true, { companyName: 'New name', title: 'Lead' }), pos('7', false, { companyName: 'Old name' })] }],
  ['a new employer by ID', { positions: [pos('7', true), pos('8', false)] }],
  ['unknown start year and month', { positions: [pos('7', true, { startYear: 0, startMonth: 0 }), pos('8', false)] }],
  ['a first job', { positions: [pos('7', true)] }],
  ['only past positions', { positions: [pos('7', false), pos('8', false), pos('7', false)] }],
];


describe('lake_position_facts', () => {
  it.each(cases)('%s: the same facts as the rule functions', async (_name, record) => {
    const { rows } = await h.knex.raw<{ rows: { old: string; new: string }[] }>(
      `select ${OLD} as old, ${NEW} as new from (select ?::jsonb as r) t, lateral lake_position_facts(r) f`,
      [JSON.stringify(record)],
    );
    expect(rows[0].new).toBe(rows[0].old);
  });

  it('the facts of a work history with past employers, as the writer stores them', async () => {
    const record = cases[3][1];
    const { rows } = await h.knex.raw<{ rows: { previous: { companyId: string }; changed_employer: boolean; past_ordinals: number[]; current_started_on: Date }[] }>(
      'select (f).* from (select lake_position_facts(?::jsonb) as f) x',
      [JSON.stringify(record)],
    );
    expect(rows[0].previous.companyId).toBe('10');
    expect(rows[0].changed_employer).toBe(false);
    expect([...rows[0].past_ordinals].sort()).toEqual([2, 7]); // B's newest stint and C's; not A (current there), nor the positions without a usable ID
    expect(rows[0].current_started_on).toBeTruthy();
  });
});
