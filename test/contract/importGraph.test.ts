/**
 * The import graph of src/ (madge, reading .ts and .tsx): no circle, and the layers' arrows point
 * one way: nothing in src/db/ imports src/domain/ (repositories take plain values and the record
 * model of src/model/), and src/model/, the ground floor, imports neither. Between the rooms of
 * src/domain/ (its folders: lake/, webhooks/, monitors/, ...) no circle either, through however many
 * rooms: a room's files may import another room's only where that room never leads back (the
 * files at domain/'s top, errors.ts, paging.ts, text.ts, undici.ts, are shared, not a room).
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

  it('has no circle between the rooms of domain/', () => {
    const roomOf = (file: string) => /^domain\/([^/]+)\//.exec(file)?.[1];
    const edges = new Map<string, Map<string, string>>();
    for (const [file, deps] of Object.entries(graph)) {
      const from = roomOf(file);
      if (!from) continue;
      for (const dep of deps) {
        const to = roomOf(dep);
        if (!to || to === from) continue;
        if (!edges.has(from)) edges.set(from, new Map());
        if (!edges.get(from)!.has(to)) edges.get(from)!.set(to, `${file} -> ${dep}`);
      }
    }
    // Every room that leads back to itself, with the first arrow of each step of the way.
    const circlesFound: string[][] = [];
    const walk = (start: string, at: string, path: string[], seen: Set<string>) => {
      for (const [to, arrow] of edges.get(at) ?? []) {
        if (to === start) circlesFound.push([...path, arrow]);
        else if (!seen.has(to)) walk(start, to, [...path, arrow], new Set([...seen, to]));
      }
    };
    for (const room of edges.keys()) walk(room, room, [], new Set([room]));
    expect(edges.size).toBeGreaterThan(3);
    expect(circlesFound).toEqual([]);
  });

  it('has no arrow from db/ to domain/', () => {
    expect(arrows('db/', 'domain/')).toEqual([]);
  });

  it('has no arrow from model/ to db/ or domain/', () => {
    expect([...arrows('model/', 'db/'), ...arrows('model/', 'domain/')]).toEqual([]);
  });
});
