/**
 * Stage 5 of matching: scores into likelihoods. A likelihood is the probability that the record is
 * the one asked for, and it is calibrated: the map from score to probability (a logistic curve,
 * Platt scaling: p = 1 / (1 + 2^-(a·score + b))) is fitted on labelled queries of one world seed by
 * scripts/fit-match-calibration.ts and evaluated on other seeds by `npm run bench:match`.
 *
 * The candidates of one query are alternatives: at most one is the person. Each candidate's odds
 * p/(1-p) are shared with the others' (likelihood = odds / (1 + Σ odds)), so two people with the same
 * name at the same company, both scoring high, get about half each, and neither is claimed with
 * certainty; `ambiguous` says so. A lone candidate keeps its own probability.
 */
import { PARAMETERS, type MatchParameters } from './parameters';

export interface Calibration {
  a: number;
  b: number;
}

/** The probability of one candidate alone, from its score. */
export function probabilityOf(score: number, c: Calibration): number {
  const z = c.a * score + c.b;
  return 1 / (1 + Math.pow(2, -z));
}

/** A candidate takes this share or more of the likelihood: the answer is ambiguous. */
export const AMBIGUOUS_SHARE = 0.1;

const MAX_ODDS = 1e9;

/** The likelihood of each candidate, in the order given, and whether each has a close rival. */
export function likelihoods(scores: readonly number[], c: Calibration): { likelihood: number; ambiguous: boolean }[] {
  const odds = scores.map((s) => {
    const p = probabilityOf(s, c);
    return p >= 1 ? MAX_ODDS : Math.min(MAX_ODDS, p / (1 - p));
  });
  const total = odds.reduce((sum, o) => sum + o, 0);
  const shares = odds.map((o) => o / (1 + total));
  return shares.map((share, i) => ({
    likelihood: roundLikelihood(share),
    ambiguous: shares.some((other, j) => j !== i && other >= AMBIGUOUS_SHARE),
  }));
}

export const calibrationOf = (kind: 'person' | 'company', parameters: MatchParameters = PARAMETERS): Calibration =>
  parameters[kind].calibration;

/** Three decimals; never a rounded 1 for a guess (1 is kept for identifiers). */
function roundLikelihood(x: number): number {
  const r = Math.round(x * 1000) / 1000;
  return r >= 1 ? 0.999 : r;
}
