/**
 * `enrich import`'s progress counts records, with a rate and an ETA, not bytes: on a terminal (a
 * real pseudo-terminal from util-linux `script`, so cli-progress draws its bar) and in plain lines
 * when stderr is a pipe.
 */
import { execFile } from 'node:child_process';
import { enrichProcess, ENRICH_BIN } from '../../helpers/cli';
import { testDatabaseUrl, useHarness } from '../../helpers/harness';
import { personRecord } from '../../helpers/lakeRecords';
import { useNdjsonFiles } from '../../helpers/ndjson';

useHarness({ workspaceRateLimit: 100 });
const { file } = useNdjsonFiles('enrich-import-progress');
const RECORDS = 120;

// eslint-disable-next-line no-control-regex
const plain = (s: string) => s.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '').replace(/\r/g, '\n');

describe('enrich import progress', () => {
  it('on a terminal: a bar of records with rate and ETA, ending at every record', async () => {
    const input = file(Array.from({ length: RECORDS }, () => personRecord()));
    const command = [process.execPath, ENRICH_BIN, 'import', 'persons', input, '--batch-size', '20'].map((a) => `'${a}'`).join(' ');
    const out = await new Promise<string>((resolve, reject) =>
      execFile('script', ['-qec', command, '/dev/null'], { env: { ...process.env, DATABASE_URL: testDatabaseUrl() }, timeout: 120_000 }, (err, stdout) =>
        err ? reject(err) : resolve(stdout),
      ),
    );
    const text = plain(out);
    expect(text).toContain(`Imported ${RECORDS} persons`);
    expect(text).toMatch(new RegExp(`import persons \\[[^\\]]+\\] 100% \\| ${RECORDS}/${RECORDS} records \\| \\d+/s \\| ETA \\S+`));
    expect(text).not.toContain('bytes');
  }, 150_000);

  it('in a pipe: plain lines of records with rate and ETA', async () => {
    const input = file(Array.from({ length: RECORDS }, () => personRecord()));
    const res = await enrichProcess(['import', 'persons', input, '--batch-size', '20']);
    expect(res.code).toBe(0);
    expect(res.stderr).toMatch(new RegExp(`import persons: ${RECORDS}/${RECORDS} records \\(100%\\), \\d+/s, ETA \\S+, ${RECORDS} written, 0 invalid`));
    expect(res.stderr).not.toContain('bytes');
  }, 150_000);
});
