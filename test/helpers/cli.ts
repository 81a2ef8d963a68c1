/**
 * The operator CLI on the run's database, two ways:
 *
 * - `enrich(...args)` runs the command in this process through runCli (src/cli/main.ts), with its
 *   output captured and DATABASE_URL pointing at the run's database: what the command does, without
 *   paying for a new node process per call.
 * - `enrichProcess(...args)` runs `node bin/enrich.js ...` in a child process, as a user does: for
 *   the few tests about the process itself (the bin, exit codes, startup).
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { runCli } from '../../src/cli/main';
import { testDatabaseUrl } from './harness';

const run = promisify(execFile);
export const ENRICH_BIN = path.resolve(__dirname, '../../bin/enrich.js');

export interface CliResult {
  stdout: string;
  stderr: string;
  code: number;
}

function capture(): { write(chunk: string): boolean; text(): string } {
  const chunks: string[] = [];
  return {
    write: (chunk) => chunks.push(chunk) > 0,
    text: () => chunks.join(''),
  };
}

/** Runs `enrich ...args` in-process; never exits the test process. */
export async function enrich(...args: string[]): Promise<CliResult> {
  const stdout = capture();
  const stderr = capture();
  const code = await runCli(args, { stdout, stderr, env: { ...process.env, DATABASE_URL: testDatabaseUrl() } });
  return { stdout: stdout.text(), stderr: stderr.text(), code };
}

/** Runs `node bin/enrich.js ...args` in a child process. */
export async function enrichProcess(args: string[], env: NodeJS.ProcessEnv = {}): Promise<CliResult> {
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
