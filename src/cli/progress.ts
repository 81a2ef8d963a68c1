/**
 * Progress of long operator commands on stderr: a live bar (cli-progress) on a terminal, plain
 * timestamped lines otherwise (CI logs, pipes), at most one every few seconds. Both show the count
 * of `unit` done, the rate per second and the time left (ETA).
 */
import { Presets, SingleBar } from 'cli-progress';
import type { OutputStream } from './io';

export interface Progress {
  update(done: number, detail?: string): void;
  /** A better estimate of the total (an import knows its record count only at the end). */
  setTotal(total: number): void;
  stop(): void;
}

export interface ProgressOptions {
  /** What is counted, shown after the figures ("records"). */
  unit?: string;
}

/** Seconds as `1h02m`, `3m05s`, `42s`; `-` when unknown. */
export function formatEta(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds < 0) return '-';
  const s = Math.round(seconds);
  if (s >= 3600) return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
  if (s >= 60) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  return `${s}s`;
}

/** Rate per second since `started` and the time left at that rate. */
function pace(started: number, done: number, total: number): { rate: number; eta: string } {
  const seconds = (Date.now() - started) / 1000;
  const rate = done / Math.max(seconds, 0.001);
  return { rate: Math.round(rate), eta: done > 0 ? formatEta((total - done) / rate) : '-' };
}

const PLAIN_INTERVAL_MS = 5_000;

export function createProgress(label: string, total: number, quiet: boolean, stream: OutputStream, opts: ProgressOptions = {}): Progress {
  if (quiet) return { update: () => undefined, setTotal: () => undefined, stop: () => undefined };
  const unit = opts.unit ? ` ${opts.unit}` : '';
  const started = Date.now();
  if (stream.isTTY) {
    // Rate and ETA computed here (cli-progress's own ETA needs a fixed total).
    const bar = new SingleBar(
      {
        format: `${label} [{bar}] {percentage}% | {value}/{total}${unit} | {rate}/s | ETA {eta_left} | {detail}`,
        stream: stream as NodeJS.WritableStream,
        hideCursor: true,
      },
      Presets.shades_classic,
    );
    bar.start(total, 0, { detail: '', rate: 0, eta_left: '-' });
    let stopped = false;
    return {
      update(done, detail = '') {
        const value = Math.min(done, total);
        const { rate, eta } = pace(started, value, total);
        bar.update(value, { detail, rate, eta_left: eta });
      },
      setTotal(next) {
        total = Math.max(next, 0);
        bar.setTotal(total);
      },
      stop() {
        if (stopped) return;
        stopped = true;
        bar.stop();
      },
    };
  }
  let last = started;
  let stopped = false;
  const line = (done: number, detail: string) => {
    const { rate, eta } = pace(started, done, total);
    const pct = total ? ` (${Math.floor((done / total) * 100)}%)` : '';
    stream.write(`${label}: ${done}/${total}${unit}${pct}, ${rate}/s, ETA ${eta}${detail ? `, ${detail}` : ''}\n`);
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
    setTotal(next) {
      total = Math.max(next, 0);
    },
    stop() {
      if (stopped) return;
      stopped = true;
      line(lastDone, lastDetail);
    },
  };
}
