/**
 * The world's persons as a file people really have: an export that lists some persons twice
 * (nightly dumps overlap, CRMs hold duplicates) and holds a few broken lines. For `bench:import`
 * and the import tests. Each repeat comes back further down the file, 1 to 3,000 lines later (so
 * within an import chunk and across chunks alike), as one of three kinds in turn:
 * - `identical`: the same line again;
 * - `reverified`: the same content with `fetched_at` a day later (the writer moves only fetched_at);
 * - `changed`: a new `current_title` and `fetched_at` a day later (the writer logs the change).
 * Invalid lines are not JSON or not a person. Deterministic for a seed (random.ts).
 */
import fs from 'node:fs';
import { once } from 'node:events';
import zlib from 'node:zlib';
import { createWorld, type WorldOptions } from '.';
import { deriveKey, Rng } from './random';

export interface RealisticFileOptions extends WorldOptions {
  /** Share of persons listed a second time (0.01: 1 %). */
  repeatShare: number;
  /** Share of lines that are invalid (0.001: 0.1 %). */
  invalidShare: number;
  gzip?: boolean;
}

export interface RealisticFileReport {
  lines: number;
  persons: number;
  identical: number;
  reverified: number;
  changed: number;
  invalid: number;
}

const INVALID_LINES = ['{"not": "a person"}', '{"id": "truncated", "username": '];
const DAY_MS = 86_400_000;

export async function writeRealisticPersonsFile(file: string, options: RealisticFileOptions): Promise<RealisticFileReport> {
  const world = createWorld(options);
  const rng = new Rng();
  rng.reset(deriveKey(options.seed, 0x7265_7065), 0); // 'repe'
  const out = fs.createWriteStream(file);
  const sink = options.gzip ? zlib.createGzip() : undefined;
  sink?.pipe(out);
  const target = sink ?? out;
  const report: RealisticFileReport = { lines: 0, persons: world.persons, identical: 0, reverified: 0, changed: 0, invalid: 0 };
  /** Repeats waiting for the line after which they are written. */
  const later = new Map<number, string[]>();
  let kind = 0;
  let buffer = '';
  const emit = async (line: string) => {
    buffer += `${line}\n`;
    report.lines += 1;
    if (buffer.length < 1 << 20) return;
    if (!target.write(buffer)) await once(target, 'drain');
    buffer = '';
  };
  for (let i = 0; i < world.persons; i += 1) {
    const person = world.person(i);
    const text = JSON.stringify(person);
    await emit(text);
    if (rng.chance(options.invalidShare)) {
      await emit(INVALID_LINES[report.invalid % INVALID_LINES.length]!);
      report.invalid += 1;
    }
    if (rng.chance(options.repeatShare)) {
      const at = Math.min(i + rng.range(1, 3000), world.persons - 1);
      const fetchedAt = new Date(Date.parse(person.fetched_at) + DAY_MS).toISOString();
      let again: string;
      switch (kind++ % 3) {
        case 0:
          again = text;
          report.identical += 1;
          break;
        case 1:
          again = JSON.stringify({ ...person, fetched_at: fetchedAt });
          report.reverified += 1;
          break;
        default:
          again = JSON.stringify({ ...person, current_title: `${person.current_title ?? 'Staff'} (promoted)`, fetched_at: fetchedAt });
          report.changed += 1;
      }
      later.set(at, [...(later.get(at) ?? []), again]);
    }
    for (const line of later.get(i) ?? []) await emit(line);
    later.delete(i);
  }
  if (buffer) target.write(buffer);
  target.end();
  await once(out, 'finish');
  return report;
}
