/**
 * The verdicts of one query's candidates: scores turned into likelihoods together (calibrate.ts),
 * the evidence strongest first, the candidates best first. Shared by person.ts and company.ts.
 */
import type { components } from '../../../generated/types';
import { AppError } from '../errors';
import { calibrationOf, likelihoods } from './calibrate';
import type { WeighedComparison } from './score';
import { scoreOf } from './score';
import { PARAMETERS, type MatchParameters } from './parameters';

export type MatchVerdict = components['schemas']['MatchVerdict'];
export type MatchEvidence = components['schemas']['MatchEvidence'];

export interface Ranked<T> {
  item: T;
  score: number;
  verdict: MatchVerdict;
}

export function rank<T>(kind: 'person' | 'company', scored: readonly { item: T; evidence: WeighedComparison[] }[], parameters: MatchParameters = PARAMETERS): Ranked<T>[] {
  const scores = scored.map((s) => scoreOf(s.evidence));
  const shares = likelihoods(scores, calibrationOf(kind, parameters));
  return scored
    .map((s, i) => ({
      item: s.item,
      score: scores[i]!,
      verdict: {
        likelihood: shares[i]!.likelihood,
        ambiguous: shares[i]!.ambiguous,
        evidence: [...s.evidence].sort((a, b) => Math.abs(b.weight) - Math.abs(a.weight)) as MatchEvidence[],
      },
    }))
    .sort((a, b) => b.score - a.score || b.verdict.likelihood - a.verdict.likelihood);
}

/** The verdict of a lookup by identifier: certain. */
export const identifierVerdict = (value: string): MatchVerdict => ({
  likelihood: 1,
  ambiguous: false,
  evidence: [{ field: 'identifier', level: 'exact', input: value, record: value, weight: 0 }],
});

/** The contract's default bar (PersonMatchRequest.min_likelihood). */
export const DEFAULT_MIN_LIKELIHOOD = 0.7;

export const noMatch = (min: number) => new AppError('NO_MATCH', `No record matched with a likelihood of at least ${min}.`);
