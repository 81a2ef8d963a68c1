/**
 * The match model's parameters: per field and level the m and u probabilities (score.ts), and per
 * kind the calibration curve (calibrate.ts). Written by scripts/fit-match-calibration.ts; `fitted`
 * says on what. Until a fit is committed these are hand-set priors (fitted: null).
 */
import type { Level } from './compare';

export type LevelParameters = Partial<Record<Level, { m: number; u: number }>>;

export interface KindParameters {
  fields: Record<string, LevelParameters>;
  calibration: { a: number; b: number };
}

export interface MatchParameters {
  fitted: null | { seed: number; queries: number; mix: string; at: string; script: string };
  person: KindParameters;
  company: KindParameters;
}

export const PARAMETERS: MatchParameters = {
  fitted: null,
  person: {
    fields: {
      name: { exact: { m: 0.8, u: 0.02 }, nickname: { m: 0.06, u: 0.004 }, close: { m: 0.08, u: 0.01 }, partial: { m: 0.04, u: 0.3 }, different: { m: 0.02, u: 0.67 } },
      company: { exact: { m: 0.75, u: 0.02 }, close: { m: 0.08, u: 0.01 }, former: { m: 0.12, u: 0.02 }, different: { m: 0.05, u: 0.95 } },
      company_id: { exact: { m: 0.85, u: 0.01 }, former: { m: 0.1, u: 0.01 }, different: { m: 0.05, u: 0.98 } },
      company_domain: { exact: { m: 0.8, u: 0.02 }, close: { m: 0.05, u: 0.01 }, former: { m: 0.1, u: 0.02 }, different: { m: 0.05, u: 0.95 } },
      email: { exact: { m: 0.7, u: 0.02 }, nickname: { m: 0.05, u: 0.005 }, close: { m: 0.05, u: 0.02 }, partial: { m: 0.15, u: 0.1 }, different: { m: 0.05, u: 0.86 } },
      title: { exact: { m: 0.6, u: 0.05 }, close: { m: 0.2, u: 0.1 }, partial: { m: 0.1, u: 0.2 }, different: { m: 0.1, u: 0.65 } },
      location: { exact: { m: 0.85, u: 0.15 }, close: { m: 0.05, u: 0.02 }, partial: { m: 0.03, u: 0.05 }, different: { m: 0.07, u: 0.78 } },
      school: { exact: { m: 0.8, u: 0.03 }, close: { m: 0.1, u: 0.02 }, different: { m: 0.1, u: 0.95 } },
    },
    calibration: { a: 0.8, b: -5 },
  },
  company: {
    fields: {
      name: { exact: { m: 0.8, u: 0.05 }, close: { m: 0.1, u: 0.05 }, former: { m: 0.08, u: 0.01 }, partial: { m: 0.01, u: 0.2 }, different: { m: 0.01, u: 0.69 } },
      domain: { exact: { m: 0.95, u: 0.001 }, different: { m: 0.05, u: 0.999 } },
      location: { exact: { m: 0.85, u: 0.1 }, close: { m: 0.05, u: 0.02 }, partial: { m: 0.03, u: 0.05 }, different: { m: 0.07, u: 0.83 } },
    },
    calibration: { a: 0.8, b: -3 },
  },
};
