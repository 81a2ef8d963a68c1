/** `enrich workspace list` and `enrich --version`, run in-process against the test database. */
import fs from 'node:fs';
import path from 'node:path';
import { enrich } from '../../helpers/cli';

describe('enrich workspace list', () => {
  it('lists a created workspace with its license, rate limit and active key count (text and --json)', async () => {
    const name = `listed-${Date.now().toString(36)}`;
    const created = await enrich('workspace', 'create', '--name', name, '--rate-limit', '321', '--json');
    expect(created.code).toBe(0);
    const id = JSON.parse(created.stdout).workspace_id;

    const json = await enrich('workspace', 'list', '--json');
    expect(json.stderr).toBe('');
    expect(json.code).toBe(0);
    const mine = JSON.parse(json.stdout).workspaces.find((w: { workspace_id: string }) => w.workspace_id === id);
    expect(mine).toMatchObject({ name, license: 'active', rate_limit: 321, active_keys: 1 });

    const text = await enrich('workspace', 'list');
    expect(text.stdout).toMatch(new RegExp(`${id}\\s+active\\s+321/min\\s+1 key\\(s\\)\\s+${name}`));
  });
});

describe('enrich --version', () => {
  it("prints the package's version", async () => {
    const { version } = JSON.parse(fs.readFileSync(path.join(__dirname, '../../../package.json'), 'utf8'));
    const res = await enrich('--version');
    expect(res.code).toBe(0);
    expect(res.stdout.trim()).toBe(version);
  });
});
