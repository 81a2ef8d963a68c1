/**
 * The figures of `npm run bench:match` from labelled outcomes (pure; test/unit/bench/matchMetrics.test.ts):
 * per noise class and overall, precision, recall, false-match rate on absent people, precision of
 * the confident answers (likelihood >= 0.9) and the expected calibration error over 10 bins.
 */

/** One labelled query and what the service answered. */
export interface Outcome {
  noise: string;
  /** The record the query was made from; null: nobody in the lake. */
  expectedId: string | null;
  /**
   * The answer at the default min_likelihood: the matched id, or null for a 404 NO_MATCH.
   * (A 400 or another failure is `error`.)
   */
  answeredId: string | null;
  /** The likelihood of that answer (null when not answered). */
  likelihood: number | null;
  /**
   * The best candidate whatever its likelihood (the query sent again with min_likelihood 0), for the
   * calibration: its id and likelihood, or null when there was no candidate at all.
   */
  best: { id: string; likelihood: number } | null;
  error?: string;
}

export interface Figures {
  queries: number;
  /** Queries made from a lake record / for someone absent. */
  present: number;
  absent: number;
  answered: number;
  correct: number;
  /** correct / answered (absent people answered count as wrong); NaN when nothing was answered. */
  precision: number;
  /** correct / present. */
  recall: number;
  /** Absent people answered / absent people; NaN without absent queries. */
  falseMatchRate: number;
  /** Precision of the answers given with likelihood >= 0.9, and how many there were. */
  confidentPrecision: number;
  confident: number;
  /** Expected calibration error of the best candidates' likelihoods over 10 equal-width bins. */
  ece: number;
  errors: number;
}

export const CONFIDENT = 0.9;

/** ECE: sum over 10 bins of (bin size / n) * |mean likelihood - share right|. */
export function expectedCalibrationError(points: readonly { p: number; right: boolean }[], bins = 10): number {
  if (!points.length) return NaN;
  const count = new Array<number>(bins).fill(0);
  const sumP = new Array<number>(bins).fill(0);
  const sumRight = new Array<number>(bins).fill(0);
  for (const { p, right } of points) {
    const b = Math.min(bins - 1, Math.max(0, Math.floor(p * bins)));
    count[b]! += 1;
    sumP[b]! += p;
    sumRight[b]! += right ? 1 : 0;
  }
  let ece = 0;
  for (let b = 0; b < bins; b++) if (count[b]! > 0) ece += (count[b]! / points.length) * Math.abs(sumP[b]! / count[b]! - sumRight[b]! / count[b]!);
  return ece;
}

export function figures(outcomes: readonly Outcome[]): Figures {
  const ok = outcomes.filter((o) => o.error === undefined);
  const present = ok.filter((o) => o.expectedId !== null);
  const absent = ok.filter((o) => o.expectedId === null);
  const answered = ok.filter((o) => o.answeredId !== null);
  const correct = answered.filter((o) => o.expectedId !== null && o.answeredId === o.expectedId);
  const confident = answered.filter((o) => (o.likelihood ?? 0) >= CONFIDENT);
  const confidentRight = confident.filter((o) => o.expectedId !== null && o.answeredId === o.expectedId);
  // Calibration: every best candidate with its likelihood, right when it is the expected record
  // (for an absent person no candidate is right; no candidate at all says nothing, so it is left out).
  const points = ok.filter((o) => o.best !== null).map((o) => ({ p: o.best!.likelihood, right: o.expectedId !== null && o.best!.id === o.expectedId }));
  return {
    queries: outcomes.length,
    present: present.length,
    absent: absent.length,
    answered: answered.length,
    correct: correct.length,
    precision: answered.length ? correct.length / answered.length : NaN,
    recall: present.length ? correct.length / present.length : NaN,
    falseMatchRate: absent.length ? absent.filter((o) => o.answeredId !== null).length / absent.length : NaN,
    confidentPrecision: confident.length ? confidentRight.length / confident.length : NaN,
    confident: confident.length,
    ece: expectedCalibrationError(points),
    errors: outcomes.length - ok.length,
  };
}

/** Figures per noise class (in the order given), then per group, then overall. */
export function figuresBy(outcomes: readonly Outcome[], key: (o: Outcome) => string): Map<string, Figures> {
  const groups = new Map<string, Outcome[]>();
  for (const o of outcomes) {
    const k = key(o);
    let list = groups.get(k);
    if (list === undefined) groups.set(k, (list = []));
    list.push(o);
  }
  return new Map([...groups].map(([k, list]) => [k, figures(list)]));
}

const pct = (x: number) => (Number.isNaN(x) ? '   -  ' : `${(x * 100).toFixed(1).padStart(5)}%`);
const num = (x: number) => (Number.isNaN(x) ? '   -  ' : x.toFixed(3).padStart(6));

export const TABLE_HEADER = `${'class'.padEnd(22)}${'n'.padStart(6)}${'prec'.padStart(8)}${'recall'.padStart(8)}${'false'.padStart(8)}${'prec@.9'.padStart(9)}${'n@.9'.padStart(6)}${'ECE'.padStart(8)}${'err'.padStart(5)}`;

export function tableRow(name: string, f: Figures): string {
  return `${name.padEnd(22)}${String(f.queries).padStart(6)}${pct(f.precision).padStart(8)}${pct(f.recall).padStart(8)}${pct(f.falseMatchRate).padStart(8)}${pct(f.confidentPrecision).padStart(9)}${String(f.confident).padStart(6)}${num(f.ece).padStart(8)}${String(f.errors).padStart(5)}`;
}
