/** NDJSON input files for a test file's imports, in a folder of its own removed after the file. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';

export function useNdjsonFiles(prefix: string): { dir: string; file(lines: unknown[], gzip?: boolean): string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `${prefix}-`));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
  let n = 0;
  return {
    dir,
    /** One file of the lines (records as JSON, strings as they are), gzipped when asked. */
    file(lines: unknown[], gzip = false): string {
      const text = lines.map((l) => (typeof l === 'string' ? l : JSON.stringify(l))).join('\n') + '\n';
      const name = path.join(dir, `input-${++n}.ndjson${gzip ? '.gz' : ''}`);
      fs.writeFileSync(name, gzip ? zlib.gzipSync(text) : text);
      return name;
    },
  };
}
