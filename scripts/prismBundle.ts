/**
 * Prism serves and validates the paths of a document relative to the server, ignoring the path of
 * `servers[].url`, so the plain bundle would be served at `/person` instead of `/api/v1/person`.
 * This writes a variant of generated/openapi.json for Prism only: every path key carries the
 * `/api/v1` base path and the server is the bare origin. Everything else is the bundle unchanged,
 * so Prism's mock and validating proxy answer on exactly the addresses of the real server.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export const API_ROOT = '/api/v1';
const BUNDLE = path.resolve(__dirname, '../generated/openapi.json');

export function prismDocument(origin = 'http://127.0.0.1:4010'): Record<string, unknown> {
  const doc = JSON.parse(fs.readFileSync(BUNDLE, 'utf8')) as { paths: Record<string, unknown>; servers?: unknown };
  doc.paths = Object.fromEntries(Object.entries(doc.paths).map(([p, item]) => [API_ROOT + p, item]));
  doc.servers = [{ url: origin, description: 'Prism' }];
  return doc;
}

/**
 * Writes the Prism variant to a fresh temporary directory and returns the file's path. The caller
 * removes it with removePrismBundle once Prism has stopped; the process's exit does too, as a
 * fallback (only in a plain Node process: inside a jest test file `process` is jest's copy, whose
 * 'exit' never fires).
 */
export function writePrismBundle(origin?: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'enrich-prism-'));
  process.once('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'openapi.prism.json');
  fs.writeFileSync(file, JSON.stringify(prismDocument(origin), null, 2));
  return file;
}

export function removePrismBundle(file: string): void {
  fs.rmSync(path.dirname(file), { recursive: true, force: true });
}
