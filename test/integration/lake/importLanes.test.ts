/**
 * `enrich import` on several lanes (domain/lake/lanes.ts): the same file imported on one lane and
 * on three gives the same lake, the same change log, the same tombstones and the same report, line
 * for line: the same person many times across the file with changing data (the last line wins),
 * a record taking over the username of a stored one, records refused as withdrawn mid-file, and
 * invalid lines in between; and a record the database cannot store fails only itself.
 */
import { importFile, type ImportReport } from '../../../src/domain/lake/importer';
import { suppress } from '../../../src/domain/lake/suppression';
import { writeRecords } from '../../../src/domain/lake/write/writer';
import { lookupKeys, recordIdentifiers, splitIntoLanes } from '../../../src/domain/lake/lanes';
import { storedIdentities } from '../../../src/db/repositories/lakeIdentities';
import { recordValidator } from '../../../src/http/recordSchemas';
import { enrichWith } from '../../helpers/cli';
import { useLakeWorld } from '../../helpers/lakeWorld';
import { useNdjsonFiles } from '../../helpers/ndjson';
import { companyRecord, personRecord, SERVED_RECORD } from '../../helpers/lakeRecords';
import type { PersonRecord } from '../../../src/model/records';

const lw = useLakeWorld();
const { file } = useNdjsonFiles('enrich-import-lanes');

const rows = async <T>(sql: string): Promise<T[]> => (await lw.h.knex.raw<{ rows: T[] }>(sql)).rows;

async function emptyLake(): Promise<void> {
  await lw.h.knex.raw('truncate persons, person_positions, person_educations, person_refresh, companies, company_refresh, change_log, suppressions cascade');
  // The distributed layout's identifier table (npm run test:citus:suite) goes with the records.
  if ((await rows<{ present: boolean }>("select to_regclass('lake_identifiers') is not null as present"))[0]!.present) {
    await lw.h.knex.raw('truncate lake_identifiers');
  }
}

/** An import with the transactions it used counted (each lane's write is one). */
async function run(kind: 'person' | 'company', name: string, lanes: number, batchSize: number) {
  const transactions = new Set<string>();
  const onQuery = (q: { __knexTxId?: string }) => q.__knexTxId && transactions.add(q.__knexTxId);
  lw.h.knex.on('query', onQuery);
  try {
    const report = await importFile(lw.h.knex, {
      kind,
      file: name,
      lanes,
      batchSize,
      validate: recordValidator(kind === 'person' ? 'PersonResult' : 'CompanyResult'),
    });
    return { report, transactions: transactions.size };
  } finally {
    lw.h.knex.off('query', onQuery);
  }
}

/** Everything an import leaves behind, in an order that does not depend on which lane went first. */
async function lakeState() {
  return {
    persons: await rows(`select id, username, network_id, current_title, ${SERVED_RECORD} as record from persons order by id`),
    positions: await rows('select person_id, ordinal, title, latest_past from person_positions order by person_id, ordinal'),
    refresh: await rows('select person_id, checked_at, lease_token from person_refresh order by person_id'),
    companies: await rows(`select id, company_id, ${SERVED_RECORD} as record from companies order by id`),
    changes: await rows('select kind, subject_id, event, diff, origin from change_log order by subject_id, id'),
    tombstones: await rows('select digest, kind from suppressions order by digest'),
  };
}

const comparable = ({ elapsed_ms: _e, records_per_second: _r, file: _f, ...rest }: ImportReport) => rest;

function withTitle(p: PersonRecord, title: string): PersonRecord {
  return { ...p, current_title: title, headline: `${title} at ${p.current_company}`, positions: [{ ...p.positions[0], title }, ...p.positions.slice(1)] };
}

describe('import on several lanes', () => {
  it('gives the lake, change log, tombstones and report of a one-lane import, and the last line for a person wins', async () => {
    const people = Array.from({ length: 6 }, () => personRecord());
    const fillers = Array.from({ length: 24 }, () => personRecord());
    const stored = personRecord({ username: `shared-${Date.now()}` });
    const renamed = { ...stored, username: `${stored.username}-renamed`, network_url: `https://www.linkedin.com/in/${stored.username}-renamed` };
    const takeover = personRecord({ username: stored.username, network_url: stored.network_url });
    const withdrawn = personRecord();
    const sameNetworkId = personRecord({ network_id: withdrawn.network_id });
    const laterSameNetworkId = personRecord({ network_id: withdrawn.network_id });

    const lines: unknown[] = [];
    let filler = 0;
    for (let round = 0; round < 4; round += 1) {
      // Each person twice a few lines apart (so in one batch, where lanes split batches) and
      // again in every round (so in later batches too).
      for (const p of people) {
        lines.push(withTitle(p, `Title ${round} draft`));
        lines.push(fillers[filler++ % fillers.length]);
        lines.push(withTitle(p, `Title ${round}`));
      }
      if (round === 0) lines.push('{"not": json', withdrawn, sameNetworkId);
      if (round === 1) lines.push(takeover, renamed, { ...personRecord(), favourite_colour: 'teal' });
      if (round === 2) lines.push(laterSameNetworkId);
    }
    const name = file(lines);

    const outcomes = [];
    for (const lanes of [1, 3]) {
      await emptyLake();
      await lw.h.knex.transaction((trx) => writeRecords(trx, 'person', [stored]));
      await suppress(lw.h.knex, 'person', { by: 'username', value: withdrawn.username });
      const { report, transactions } = await run('person', name, lanes, 7);
      outcomes.push({ report, transactions, state: await lakeState() });
    }
    const [one, three] = outcomes;
    expect(comparable(three.report)).toEqual(comparable(one.report));
    expect(three.state).toEqual(one.state);
    // The three-lane import did write on several lanes: more transactions for the same batches.
    expect(three.transactions).toBeGreaterThan(one.transactions);

    // And what both did is what the file says.
    const { report, state } = three;
    const teal = lines.findIndex((l) => typeof l === 'object' && 'favourite_colour' in (l as object));
    expect(report.errors.map((e) => e.line)).toEqual([lines.indexOf('{"not": json') + 1, teal + 1]);
    expect(report.withdrawn).toBe(2); // the withdrawn record and, in a later batch, the one sharing its network ID
    const byId = new Map(state.persons.map((p) => [(p as { id: string }).id, p as { username: string; current_title: string; record: string }]));
    for (const p of people) expect(JSON.parse(byId.get(p.id)!.record).current_title).toBe('Title 3');
    expect(byId.has(withdrawn.id)).toBe(false);
    expect(byId.has(laterSameNetworkId.id)).toBe(false);
    expect(byId.get(stored.id)!.username).toBe(renamed.username);
    expect(byId.get(takeover.id)!.username).toBe(stored.username);
    expect(state.changes.length).toBeGreaterThan(0);
  });

  it('a stored row that carries the id of one record and the username of another links them', async () => {
    await emptyLake();
    const stored = personRecord();
    await lw.h.knex.transaction((trx) => writeRecords(trx, 'person', [stored]));
    const takeover = personRecord({ username: stored.username });
    const renamed = { ...stored, username: `${stored.username}-renamed`, network_url: `https://www.linkedin.com/in/${stored.username}-renamed` };
    const batch = [takeover, renamed];
    const links = await storedIdentities(lw.h.knex, 'person', lookupKeys('person', batch));
    expect(links).toEqual([[`id:${stored.id}`, `username:${stored.username}`]]);
    const lanes = splitIntoLanes(batch, batch.map((r) => recordIdentifiers('person', r)), links, 2);
    expect(lanes).toEqual([[takeover, renamed]]);
    expect(splitIntoLanes(batch, batch.map((r) => recordIdentifiers('person', r)), [], 2)).toHaveLength(2);
  });

  it('a record the database cannot store fails only itself, reported at its line, whichever lane it was on', async () => {
    const companies = Array.from({ length: 9 }, () => companyRecord());
    const huge = { ...companyRecord(), staff_count: 10 ** 12 }; // valid for the schema, too large for the column
    const name = file([...companies.slice(0, 4), huge, ...companies.slice(4)]);
    const reports = [];
    for (const lanes of [1, 3]) {
      await emptyLake();
      const { report } = await run('company', name, lanes, 10);
      expect(report).toMatchObject({ written: 9, invalid: 1, errors: [{ line: 5, reason: expect.stringMatching(/database cannot store/) }] });
      const stored = await rows<{ id: string }>('select id from companies order by id');
      expect(stored.map((c) => c.id)).toEqual(companies.map((c) => c.id).sort());
      reports.push(comparable(report));
    }
    expect(reports[1]).toEqual(reports[0]);
  });

  it('enrich import --lanes: the CLI takes the number of lanes, and refuses one that is not a positive integer', async () => {
    await emptyLake();
    const records = Array.from({ length: 9 }, () => personRecord());
    const name = file([...records, { ...records[0], headline: 'Last' }]);
    const res = await enrichWith({ DATABASE_URL: lw.url }, 'import', 'persons', name, '--lanes', '3', '--batch-size', '5', '--json');
    expect(res.code).toBe(0);
    expect(JSON.parse(res.stdout)).toMatchObject({ lines: 10, written: 10, invalid: 0 });
    const first = await rows<{ record: string }>(`select ${SERVED_RECORD} as record from persons where id = '${records[0].id}'`);
    expect(JSON.parse(first[0].record).headline).toBe('Last');
    const refused = await enrichWith({ DATABASE_URL: lw.url }, 'import', 'persons', name, '--lanes', '0');
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/lanes/);
  });
});
