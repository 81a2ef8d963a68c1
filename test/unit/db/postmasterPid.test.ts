/**
 * A postmaster.pid left behind by a killed cluster must not be trusted: its pid may since belong to
 * any process, which the embedded start would take for a live server and the fault suite would signal.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { livePostmasterPid } from '../../../src/db/embedded';

const made: string[] = [];
const tempDir = () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'enrich-pidfile-'));
  made.push(dir);
  return dir;
};
afterAll(() => {
  for (const dir of made) fs.rmSync(dir, { recursive: true, force: true });
});

function dataDir(pid: number | string): string {
  const dir = tempDir();
  // The layout PostgreSQL writes: pid, data directory, start time, port, ...
  fs.writeFileSync(path.join(dir, 'postmaster.pid'), `${pid}\n${dir}\n1700000000\n54321\n`);
  return dir;
}

describe('livePostmasterPid', () => {
  it('is undefined without a pid file', () => {
    expect(livePostmasterPid(tempDir())).toBeUndefined();
  });

  it('is undefined for a pid no process has', async () => {
    const child = spawn(process.execPath, ['-e', '0']);
    await new Promise((resolve) => child.on('exit', resolve));
    expect(livePostmasterPid(dataDir(child.pid!))).toBeUndefined();
  });

  it('is undefined for a live process that is not a postgres serving the directory', () => {
    // This very jest worker: alive, but node, and serving nothing.
    expect(livePostmasterPid(dataDir(process.pid))).toBeUndefined();
  });

  it('is undefined for a garbled pid file', () => {
    expect(livePostmasterPid(dataDir('not-a-pid'))).toBeUndefined();
  });
});
