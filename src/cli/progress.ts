/**
 * Progress of long operator commands on stderr: a live bar (cli-progress) on a terminal, plain
 * timestamped lines otherwise (CI logs, pipes), at most one every few seconds.
 */
import { Presets, SingleBar } from 'cli-progress';
import type { OutputStream } from './io';

export interface Progress {
  update(done: number, detail?: string): void;
  stop(): void;
}

const PLAIN_INTERVAL_MS = 5_000;

export function createProgress(label: string, total: number, quiet: boolean, stream: OutputStream): Progress {
  if (quiet) return { update: () => undefined, stop: () => undefined };
  if (stream.isTTY) {
    const bar = new SingleBar(
      {
        format: `${label} [{bar}] {percentage}% | {value}/{total} | {detail}`,
        stream: stream as NodeJS.WritableStream,
        hideCursor: true,
        etaBuffer: 50,
      },
      Presets.shades_classic,
    );
    bar.start(total, 0, { detail: '' });
    let stopped = false;
    return {
      update: (done, detail = '') => bar.update(Math.min(done, total), { detail }),
      stop() {
        if (stopped) return;
        stopped = true;
        bar.stop();
      },
    };
  }
  const started = Date.now();
  let last = started;
  let stopped = false;
  const line = (done: number, detail: string) => {
    const seconds = (Date.now() - started) / 1000;
    const rate = Math.round(done / Math.max(seconds, 0.001));
    const pct = total ? ` (${Math.floor((done / total) * 100)}%)` : '';
    stream.write(`${label}: ${done}/${total}${pct}, ${rate}/s${detail ? `, ${detail}` : ''}\n`);
  };
  let lastDone = 0;
  let lastDetail = '';
  return {
    update(done, detail = '') {
      lastDone = done;
      lastDetail = detail;
      if (Date.now() - last >= PLAIN_INTERVAL_MS) {
        last = Date.now();
        line(done, detail);
      }
    },
    stop() {
      if (stopped) return;
      stopped = true;
      line(lastDone, lastDetail);
    },
  };
}
