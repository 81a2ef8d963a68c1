/**
 * `enrich` as a process, where the process is the thing under test: the bin runs the compiled
 * dist/ (which `npm test` builds first), `--help` loads none of the heavy modules, exit codes and
 * messages, one `--json` command end to end, and the fallback to the TypeScript sources when dist/
 * is missing or stale. What the commands do is tested in-process (enrich.test.ts and the others).
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { ENRICH_BIN, enrichProcess } from '../../helpers/cli';
import { useHarness } from '../../helpers/harness';

const ROOT = path.resolve(__dirname, '../../..');
const h = useHarness();
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'enrich-bin-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** `node bin/enrich.js` from another checkout root, to see which entry point it picks. */
async function runFrom(root: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [path.join(root, 'bin', 'enrich.js'), ...args]);
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

/** A checkout root that shares this one's sources and node_modules (symlinks) but has its own bin/ and dist/. */
function fakeRoot(name: string): string {
  const root = path.join(tmp, name);
  fs.mkdirSync(path.join(root, 'bin'), { recursive: true });
  fs.copyFileSync(ENRICH_BIN, path.join(root, 'bin', 'enrich.js'));
  for (const entry of ['src', 'node_modules', 'generated', 'package.json']) fs.symlinkSync(path.join(ROOT, entry), path.join(root, entry));
  return root;
}

describe('the enrich process', () => {
  it('--help runs the compiled dist/: usage on stdout, nothing on stderr, exit 0', async () => {
    const res = await enrichProcess(['--help']);
    if (res.stderr) throw new Error(`expected no stderr (is dist/ built and current? \`npm run build\`):\n${res.stderr}`);
    expect(res.code).toBe(0);
    expect(res.stdout).toMatch(/^Usage: enrich /);
    for (const command of ['migrate', 'serve', 'workspace', 'key', 'license', 'seed', 'import', 'suppress']) {
      expect(res.stdout).toMatch(new RegExp(`^  ${command} `, 'm'));
    }
  });

  it('--help loads commander but none of the database driver, server, validator or generator modules', async () => {
    const probe = path.join(tmp, 'loaded-modules.js');
    fs.writeFileSync(
      probe,
      `process.on('exit', () => require('node:fs').writeSync(2, JSON.stringify(Object.keys(require.cache))));\n`,
    );
    const { stderr } = await promisify(execFile)(process.execPath, ['--require', probe, ENRICH_BIN, '--help']);
    const packages = new Set(
      (JSON.parse(stderr) as string[]).map((file) => /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(file)?.[1]).filter(Boolean),
    );
    expect(packages).toContain('commander');
    for (const heavy of ['knex', 'pg', 'koa', '@koa/router', 'openapi-backend', 'ajv', 'ioredis', '@faker-js/faker', 'pino', 'tsx']) {
      expect([heavy, packages.has(heavy)]).toEqual([heavy, false]);
    }
  });

  it('a --json command prints exactly one JSON object and exits 0; the key it prints works', async () => {
    const res = await enrichProcess(['workspace', 'create', '--name', 'Process', '--json']);
    expect(res).toMatchObject({ code: 0, stderr: '' });
    expect(res.stdout.trim().split('\n')).toHaveLength(1);
    const created = JSON.parse(res.stdout) as { workspace_id: string; api_key: string };
    const account = await h.get('/api/v1/account', created.api_key);
    expect(account.status).toBe(200);
    expect(account.body.data.workspace).toEqual({ id: created.workspace_id, name: 'Process' });
  });

  it('exit code 1 with a message: unknown command, bad option value, and an error from the command', async () => {
    const unknown = await enrichProcess(['frobnicate']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/unknown command 'frobnicate'/);
    const badValue = await enrichProcess(['workspace', 'create', '--name', 'x', '--rate-limit', '0']);
    expect(badValue.code).toBe(1);
    expect(badValue.stderr).toMatch(/--rate-limit.*must be a positive integer/);
    const failed = await enrichProcess(['key', 'create', '--workspace', '00000000-0000-4000-8000-000000000000']);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toMatch(/^enrich: .*no workspace/m);
    expect(failed.stdout).toBe('');
  });

  it('without dist/, runs the sources through tsx and says so in one line on stderr', async () => {
    const res = await runFrom(fakeRoot('no-dist'), ['--help']);
    expect(res.code).toBe(0);
    expect(res.stdout).toMatch(/^Usage: enrich /);
    expect(res.stderr).toMatch(/^enrich: dist\/ is not built; running the TypeScript sources through tsx.*\n$/);
  });

  it('with a dist/ older than src/, runs the sources too', async () => {
    const root = fakeRoot('stale-dist');
    fs.mkdirSync(path.join(root, 'dist'));
    fs.symlinkSync(path.join(ROOT, 'dist', 'src'), path.join(root, 'dist', 'src'));
    fs.writeFileSync(path.join(root, 'dist', '.built'), 'long ago\n');
    fs.utimesSync(path.join(root, 'dist', '.built'), new Date('2001-01-01'), new Date('2001-01-01'));
    const res = await runFrom(root, ['--help']);
    expect(res.code).toBe(0);
    expect(res.stdout).toMatch(/^Usage: enrich /);
    expect(res.stderr).toMatch(/^enrich: src\/ changed since dist\/ was built; running the TypeScript sources through tsx.*\n$/);
  });
});
