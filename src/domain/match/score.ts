/**
 * Stage 4 of matching: a comparison vector into a score, Fellegi-Sunter style. Each field's level
 * carries a match weight log2(m/u): m = how often a true match shows that level, u = how often a
 * candidate that is not the person does (among candidates found by blocking, not among random
 * pairs). The score is the sum of the weights; a field not asked contributes nothing.
 *
 * The m and u probabilities are in parameters.ts, estimated by scripts/fit-match-calibration.ts from
 * labelled queries of one world seed (counts of levels among true and false candidates, with add-one
 * smoothing), and committed with how they were fitted.
 */
import type { Comparison, Level } from './compare';
import { PARAMETERS, type MatchParameters } from './parameters';

export interface WeighedComparison<F extends string = string> extends Comparison<F> {
  /** log2 Bayes factor: positive agrees, negative disagrees. */
  weight: number;
}

/** The weight of one level of one field: log2(m/u), 0 when the model has no such level. */
export function weightOf(kind: 'person' | 'company', field: string, level: Level, parameters: MatchParameters = PARAMETERS): number {
  if (level === 'missing_in_record') return 0;
  const p = parameters[kind].fields[field]?.[level];
  if (!p) return 0;
  return Math.log2(p.m / p.u);
}

export function weigh<F extends string>(kind: 'person' | 'company', comparisons: readonly Comparison<F>[], parameters: MatchParameters = PARAMETERS): WeighedComparison<F>[] {
  return comparisons.map((c) => ({ ...c, weight: round(weightOf(kind, c.field, c.level, parameters)) }));
}

export const scoreOf = (weighed: readonly { weight: number }[]) => weighed.reduce((sum, w) => sum + w.weight, 0);

const round = (x: number) => Math.round(x * 100) / 100;
