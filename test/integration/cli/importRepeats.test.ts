/**
 * `enrich import --initial-load` of a file that lists persons more than once (issue 35): a person
 * already stored by an earlier chunk goes through the writer alone while the rest of its chunk still
 * goes by COPY, and the result is exactly what the writer gives for the whole file: the lake, the
 * change log, the withdrawals and the report equal those of a plain import of the same file on one
 * lane with the same batch size (the writer's path for every batch). A repeat with the same content
 * logs nothing; one with a changed content logs its change once, and the later line wins; within a
 * chunk and across chunks, plain and gzip. The repeat costs one record's write, not its chunk's:
 * the writer's upsert receives only the repeated persons.
 */
import type { Knex } from 'knex';
import { suppress } from '../../../src/domain/lake/suppression';
import { importFile } from '../../../src/domain/lake/importer';
import { recordValidator } from '../../../src/http/recordSchemas';
import { createWorld } from '../../../src/world';
import { writeRealisticPersonsFile } from '../../../src/world/realisticFile';
import type { PersonRecord } from '../../../src/model/records';
import { enrichWith } from '../../helpers/cli';
import { useLakeWorld } from '../../helpers/lakeWorld';
import { useNdjsonFiles } from '../../helpers/ndjson';
import { personRecord, SERVED_RECORD } from '../../helpers/lakeRecords';
import path from 'node:path';
import { clearPersonLake, lakeSnapshot, PERSON_LAKE } from '../../helpers/lakeSnapshot';

const loaded = useLakeWorld();
const plain = useLakeWorld();
const { dir, file } = useNdjsonFiles('enrich-import-repeats');

const SNAPSHOT: Record<string, string> = {
  ...PERSON_LAKE,
};

const snapshot = (db: Knex) => lakeSnapshot(db, SNAPSHOT);
const clear = clearPersonLake;

const report = (stdout: string) => {
  const { elapsed_ms: _e, records_per_second: _r, file: _f, ...rest } = JSON.parse(stdout) as Record<string, unknown>;
  return rest;
};

const count = async (db: Knex, sql: string, bindings: string[] = []) =>
  Number((await db.raw<{ rows: { n: string }[] }>(sql, bindings)).rows[0].n);

const DAY_MS = 86_400_000;
const later = (p: PersonRecord, days = 1) => new Date(Date.parse(p.fetched_at) + days * DAY_MS).toISOString();
const promoted = (p: PersonRecord, title = 'promoted') => ({ ...p, current_title: `${p.current_title ?? 'Staff'} (${title})`, fetched_at: later(p) });

/**
 * 200 persons in chunks of 40 records, repeated every way: identical, re-verified (only fetched_at
 * moved) and changed, each within a chunk and in a later chunk; a person stored by an earlier chunk
 * twice in a later one (the last line wins, one change from the stored copy); a new id taking over
 * a stored username; a withdrawn person; invalid lines; a record the database refuses for a value.
 */
function lines(withdrawn: PersonRecord): unknown[] {
  const world = createWorld({ persons: 200, companies: 20, seed: 35, asOf: new Date('2026-11-01T00:00:00Z') });
  const p = Array.from({ length: world.persons }, (_, i) => world.person(i) as PersonRecord);
  const takeover = personRecord({ username: p[5]!.username });
  // A value the database refuses (beyond int4): that line is reported, the rest of its chunk written.
  const withPosition = p.find((x) => x.positions.length)!;
  const refused = { ...personRecord(), positions: [{ ...withPosition.positions[0]!, startYear: 3_000_000_000 }] };
  return [
    ...p.slice(0, 20),
    p[3], // identical, same chunk
    { ...p[4]!, fetched_at: later(p[4]!) }, // re-verified, same chunk
    promoted(p[6]!), // changed, same chunk (neither copy stored yet: nothing to log)
    ...p.slice(20, 60),
    '{"not": "a person"}',
    p[1], // identical, a later chunk
    { ...p[2]!, fetched_at: later(p[2]!) }, // re-verified, a later chunk
    promoted(p[7]!), // changed, a later chunk: logged
    withdrawn,
    refused,
    ...p.slice(60, 120),
    promoted(p[8]!, 'first'), // stored earlier, twice in one later chunk: the last wins
    'not json at all',
    promoted(p[8]!, 'second'),
    takeover, // a new id with a stored username: replaces that person
    ...p.slice(120),
    promoted(p[150]!), // changed, a later chunk
  ];
}

describe('enrich import --initial-load, persons repeated in the file', () => {
  it.each([
    ['plain', false],
    ['gzip', true],
  ])('%s: the same lake, change log and report as the writer gives for the whole file', async (_name, gzip) => {
    await clear(loaded.h.knex);
    await clear(plain.h.knex);
    const withdrawn = personRecord();
    for (const db of [loaded.h.knex, plain.h.knex]) await suppress(db, 'person', { by: 'username', value: withdrawn.username });
    const input = file(lines(withdrawn), gzip);

    const initial = await enrichWith({ DATABASE_URL: loaded.url }, 'import', 'persons', input, '--initial-load', '--batch-size', '40', '--json');
    const reference = await enrichWith({ DATABASE_URL: plain.url }, 'import', 'persons', input, '--batch-size', '40', '--lanes', '1', '--json');
    expect(reference.code).toBe(2);
    expect(initial.code).toBe(2);
    expect(report(initial.stdout)).toEqual(report(reference.stdout));
    expect(report(initial.stdout)).toMatchObject({ invalid: 3, withdrawn: 1, complete: true });
    expect(JSON.stringify(JSON.parse(initial.stdout).errors)).toMatch(/the database cannot store this record/);

    const a = await snapshot(loaded.h.knex);
    const b = await snapshot(plain.h.knex);
    for (const name of Object.keys(SNAPSHOT)) expect({ name, rows: a[name] }).toEqual({ name, rows: b[name] });
    expect(a.persons).toHaveLength(200); // the takeover replaced p[5]

    // What that means, spelled out on the loaded lake.
    const world = createWorld({ persons: 200, companies: 20, seed: 35, asOf: new Date('2026-11-01T00:00:00Z') });
    const p = (i: number) => world.person(i) as PersonRecord;
    const changes = (id: string) => count(loaded.h.knex, 'select count(*) as n from change_log where subject_id = ?', [id]);
    const served = async (id: string) => (await loaded.h.get(`/api/v1/person?id=${id}`, loaded.key)).body.data as PersonRecord;
    // Identical and re-verified repeats log nothing; the re-verified one serves the later fetched_at.
    for (const i of [1, 2, 3, 4, 6]) expect(await changes(p(i).id)).toBe(0);
    expect((await served(p(2).id)).fetched_at).toBe(later(p(2)));
    // A changed repeat in a later chunk logs its change once; the later line wins.
    for (const i of [7, 150]) {
      expect(await count(loaded.h.knex, "select count(*) as n from change_log where subject_id = ? and event = 'person.title_changed'", [p(i).id])).toBe(1);
      expect((await served(p(i).id)).current_title).toMatch(/\(promoted\)$/);
    }
    // Twice in one later chunk: one change, from the stored copy to the last line.
    expect(await changes(p(8).id)).toBe(1);
    expect((await served(p(8).id)).current_title).toMatch(/\(second\)$/);
    expect((await served(p(6).id)).current_title).toMatch(/\(promoted\)$/);
  });

  it('the writer receives only the repeated persons, the rest of their chunk goes by COPY', async () => {
    await clear(loaded.h.knex);
    const world = createWorld({ persons: 120, companies: 12, seed: 36, asOf: new Date('2026-11-01T00:00:00Z') });
    const p = Array.from({ length: world.persons }, (_, i) => world.person(i) as PersonRecord);
    // Chunks of 40: the second and third each hold two persons of the first, one changed.
    const input = file([...p.slice(0, 40), p[0], promoted(p[1]!), ...p.slice(40, 78), p[2], promoted(p[3]!), ...p.slice(78)]);
    /** Records in each of the writer's upserts of persons (its JSON parameter: fewer than 50 records). */
    const upserted: number[] = [];
    let lookups = 0;
    const listen = (q: { sql: string; bindings?: unknown[] }) => {
      if (/^select id::text as id, username from persons where/.test(q.sql)) lookups += 1;
      if (/insert into persons/.test(q.sql) && /on conflict \(id\) do update/.test(q.sql)) {
        upserted.push(typeof q.bindings?.[0] === 'string' ? (JSON.parse(q.bindings[0]) as unknown[]).length : -1);
      }
    };
    loaded.h.knex.on('query', listen);
    try {
      const result = await importFile(loaded.h.knex, {
        kind: 'person',
        file: input,
        validate: recordValidator('PersonResult'),
        initialLoad: true,
        batchSize: 40,
      });
      expect(result).toMatchObject({ lines: 124, written: 124, invalid: 0, duplicates: 0 });
    } finally {
      loaded.h.knex.off('query', listen);
    }
    expect(upserted).toEqual([1, 1]); // the changed repeat of each chunk (the identical one only moves fetched_at)
    // The three chunks were one commit (chunksPerCommit, default 5): their repeats are persons of
    // the commit's earlier chunks, known without asking the database, where one commit per chunk
    // looks the repeats of each such chunk up (2 lookups).
    expect(lookups).toBe(0);
    expect(await count(loaded.h.knex, 'select count(*) as n from persons')).toBe(120);
    expect(await count(loaded.h.knex, "select count(*) as n from change_log where event = 'person.title_changed'")).toBe(2);
  });

  it.each([
    ['plain, every record storable', false, false],
    ['gzip, with the record the database refuses (its commit falls back to chunk by chunk)', true, true],
  ])('%s: chunks committed several at once give exactly what one chunk per commit gives', async (_name, gzip, keepRefused) => {
    // The same file with no withdrawn subject in the lake (with one, a commit writes its chunks one
    // by one): its "withdrawn" line is an ordinary new person here.
    await clear(plain.h.knex);
    const refusedValue = (l: unknown) => typeof l === 'object' && (l as PersonRecord).positions?.some((x) => x.startYear > 1e9);
    const all = lines(personRecord());
    expect(all.filter(refusedValue)).toHaveLength(1);
    const input = file(keepRefused ? all : all.filter((l) => !refusedValue(l)), gzip);
    const reference = await enrichWith({ DATABASE_URL: plain.url }, 'import', 'persons', input, '--batch-size', '40', '--lanes', '1', '--json');
    const want = await snapshot(plain.h.knex);
    for (const perCommit of ['1', '3', '5', '100']) {
      await clear(loaded.h.knex);
      const initial = await enrichWith(
        { DATABASE_URL: loaded.url },
        'import', 'persons', input, '--initial-load', '--batch-size', '40', '--chunks-per-commit', perCommit, '--json',
      );
      expect({ perCommit, code: initial.code }).toEqual({ perCommit, code: reference.code });
      expect(report(initial.stdout)).toEqual(report(reference.stdout));
      const got = await snapshot(loaded.h.knex);
      for (const name of Object.keys(SNAPSHOT)) expect({ perCommit, name, rows: got[name] }).toEqual({ perCommit, name, rows: want[name] });
    }
    // What the chunk decides, whatever the commit: p[6] changed within its chunk (nothing logged),
    // p[7] and p[150] in a later chunk (logged), p[8] twice in one later chunk (logged once).
    const world = createWorld({ persons: 200, companies: 20, seed: 35, asOf: new Date('2026-11-01T00:00:00Z') });
    const p = (i: number) => world.person(i) as PersonRecord;
    const changes = (id: string) => count(loaded.h.knex, 'select count(*) as n from change_log where subject_id = ?', [id]);
    for (const i of [1, 2, 3, 4, 6]) expect(await changes(p(i).id)).toBe(0);
    for (const i of [7, 150]) {
      expect(await count(loaded.h.knex, "select count(*) as n from change_log where subject_id = ? and event = 'person.title_changed'", [p(i).id])).toBe(1);
    }
    expect(await changes(p(8).id)).toBe(1);
  });

  it('lines not as JSON.stringify writes them (spaces, escapes, a key twice, positions out of order), repeated: the same as the writer gives', async () => {
    // The initial load stores a line as it is only when it is the text JSON.stringify would write
    // (writer.ts prepareRecord), and holds each record as its line until the commit (thinRecord).
    await clear(loaded.h.knex);
    await clear(plain.h.knex);
    const withdrawn = personRecord();
    for (const db of [loaded.h.knex, plain.h.knex]) await suppress(db, 'person', { by: 'username', value: withdrawn.username });
    const respell = (line: unknown, i: number): unknown => {
      if (typeof line === 'string') return line;
      const p = line as PersonRecord;
      switch (i % 6) {
        case 0:
          return JSON.stringify(p, null, 1).replace(/\n/g, ''); // spaces between the tokens
        case 1:
          return JSON.stringify({ ...p, headline: 'a "quoted" \\ headline\twith a tab' }); // backslashes COPY must escape
        case 2:
          return JSON.stringify(p).replace('"full_name":"', '"full_name":"\\u0041\\/'); // escapes JSON.stringify does not write
        case 3:
          return { ...p, positions: [...p.positions].reverse() }; // the writer sorts them newest first
        case 4:
          return `{"full_name":"dropped",${JSON.stringify(p).slice(1)}`; // a key twice: the later one counts
        default:
          return line;
      }
    };
    const input = file(lines(withdrawn).map(respell), true);
    const initial = await enrichWith({ DATABASE_URL: loaded.url }, 'import', 'persons', input, '--initial-load', '--batch-size', '40', '--json');
    const reference = await enrichWith({ DATABASE_URL: plain.url }, 'import', 'persons', input, '--batch-size', '40', '--lanes', '1', '--json');
    expect(initial.code).toBe(2);
    expect(report(initial.stdout)).toEqual(report(reference.stdout));
    const a = await snapshot(loaded.h.knex);
    const b = await snapshot(plain.h.knex);
    for (const name of Object.keys(SNAPSHOT)) expect({ name, rows: a[name] }).toEqual({ name, rows: b[name] });
    expect(a.persons).toHaveLength(200);
    expect(a.change_log.length).toBeGreaterThan(0);
  });

  it('the bench\'s realistic file (1 % repeats, 0.1 % invalid): the same lake and change log as the writer gives', async () => {
    await clear(loaded.h.knex);
    await clear(plain.h.knex);
    const input = path.join(dir, 'realistic.ndjson.gz');
    const shape = await writeRealisticPersonsFile(input, {
      persons: 1500, companies: 50, seed: 37, asOf: new Date('2026-11-01T00:00:00Z'), repeatShare: 0.02, invalidShare: 0.002, gzip: true,
    });
    expect(shape.identical + shape.reverified + shape.changed).toBeGreaterThan(15);
    const initial = await enrichWith({ DATABASE_URL: loaded.url }, 'import', 'persons', input, '--initial-load', '--batch-size', '200', '--json');
    const reference = await enrichWith({ DATABASE_URL: plain.url }, 'import', 'persons', input, '--batch-size', '200', '--lanes', '1', '--json');
    expect(report(initial.stdout)).toEqual(report(reference.stdout));
    expect(report(initial.stdout)).toMatchObject({ lines: shape.lines, invalid: shape.invalid });
    const a = await snapshot(loaded.h.knex);
    expect(a).toEqual(await snapshot(plain.h.knex));
    expect(a.persons).toHaveLength(1500);
    expect(a.change_log.length).toBeGreaterThan(0);
  });
});
