/**
 * The import graph of src/ (madge, reading .ts and .tsx): no circle, and the layers' arrows point
 * one way: nothing in src/db/ imports src/domain/ (repositories take plain values and the record
 * model of src/model/), and src/model/, the ground floor, imports neither.
 * The same check by hand: `npx madge --circular --extensions ts,tsx src`.
 */
import path from 'node:path';
import madge from 'madge';

const src = path.join(__dirname, '..', '..', 'src');

let graph: Record<string, string[]>;
let circles: string[][];

beforeAll(async () => {
  const result = await madge(src, { fileExtensions: ['ts', 'tsx'], tsConfig: path.join(__dirname, '..', '..', 'tsconfig.json') });
  graph = result.obj();
  circles = result.circular();
}, 120_000);

const arrows = (from: string, to: string) =>
  Object.entries(graph).flatMap(([file, deps]) => (file.startsWith(from) ? deps.filter((d) => d.startsWith(to)).map((d) => `${file} -> ${d}`) : []));

describe('the import graph of src/', () => {
  it('reads the sources (a graph of the whole tree, not an empty one)', () => {
    expect(Object.keys(graph)).toEqual(expect.arrayContaining(['main.ts', 'db/knex.ts', 'domain/lake/write/writer.ts', 'model/records.ts']));
  });

  it('has no circle', () => {
    expect(circles).toEqual([]);
  });

  it('has no arrow from db/ to domain/', () => {
    expect(arrows('db/', 'domain/')).toEqual([]);
  });

  it('has no arrow from model/ to db/ or domain/', () => {
    expect([...arrows('model/', 'db/'), ...arrows('model/', 'domain/')]).toEqual([]);
  });
});
