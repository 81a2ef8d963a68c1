/** The operator CLI as a user runs it: `node bin/enrich.js ...` in a child process on the run's database. */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { testDatabaseUrl } from './harness';

const run = promisify(execFile);
export const ENRICH_BIN = path.resolve(__dirname, '../../bin/enrich.js');

export interface CliResult {
  stdout: string;
  stderr: string;
  code: number;
}

export async function enrich(...args: string[]): Promise<CliResult> {
  return enrichWith({}, ...args);
}

/** The same with extra environment (another DATABASE_URL, say). */
export async function enrichWith(env: Record<string, string>, ...args: string[]): Promise<CliResult> {
  try {
    const { stdout, stderr } = await run(process.execPath, [ENRICH_BIN, ...args], {
      env: { ...process.env, DATABASE_URL: testDatabaseUrl(), ...env },
      maxBuffer: 64 * 1024 * 1024,
    });
    return { stdout, stderr, code: 0 };
  } catch (err) {
    const e = err as { stdout: string; stderr: string; code: number };
    return { stdout: e.stdout, stderr: e.stderr, code: e.code };
  }
}

/** Runs with --json and expects success and exactly one JSON line on stdout. */
export async function enrichJson<T>(...args: string[]): Promise<T> {
  const res = await enrich(...args, '--json');
  expect(res).toMatchObject({ code: 0 });
  expect(res.stdout.trim().split('\n')).toHaveLength(1);
  return JSON.parse(res.stdout) as T;
}
