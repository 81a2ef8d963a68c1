/**
 * The match model's parameters: per field and level the m and u probabilities (score.ts), and per
 * kind the calibration curve (calibrate.ts). Written by scripts/fit-match-calibration.ts; `fitted`
 * says on what; PRIORS are the hand-set values it starts from.
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

/**
 * The hand-set priors the fit starts from (its Dirichlet pseudo-counts): m and u as judged before any
 * labelled data, calibration unfitted. Kept apart so that refitting never feeds on its own output.
 */
export const PRIORS: MatchParameters = {
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

export const PARAMETERS: MatchParameters = {
  "fitted": {
    "seed": 101,
    "queries": 5200,
    "mix": "default (DEFAULT_PERSON_MIX, DEFAULT_COMPANY_MIX)",
    "at": "world seed 101, 50000 persons / 5000 companies, query seed 7",
    "script": "scripts/fit-match-calibration.ts"
  },
  "person": {
    "fields": {
      "name": {
        "exact": {
          "m": 0.8309,
          "u": 0.00002118
        },
        "nickname": {
          "m": 0.06351,
          "u": 0.000004236
        },
        "close": {
          "m": 0.09485,
          "u": 0.00001059
        },
        "partial": {
          "m": 0.008646,
          "u": 0.001594
        },
        "different": {
          "m": 0.002098,
          "u": 0.9984
        }
      },
      "company": {
        "exact": {
          "m": 0.8583,
          "u": 0.004932
        },
        "close": {
          "m": 0.02725,
          "u": 0.0001883
        },
        "former": {
          "m": 0.1118,
          "u": 0.007911
        },
        "different": {
          "m": 0.002628,
          "u": 0.987
        }
      },
      "company_id": {
        "exact": {
          "m": 0.85,
          "u": 0.01
        },
        "former": {
          "m": 0.1,
          "u": 0.01
        },
        "different": {
          "m": 0.05,
          "u": 0.98
        }
      },
      "company_domain": {
        "exact": {
          "m": 0.9915,
          "u": 0.003546
        },
        "close": {
          "m": 0.002131,
          "u": 0.00004707
        },
        "former": {
          "m": 0.004261,
          "u": 0.007311
        },
        "different": {
          "m": 0.002131,
          "u": 0.9891
        }
      },
      "email": {
        "exact": {
          "m": 0.7688,
          "u": 0.0001274
        },
        "nickname": {
          "m": 0.003043,
          "u": 0.00003185
        },
        "close": {
          "m": 0.003043,
          "u": 0.0001274
        },
        "partial": {
          "m": 0.2221,
          "u": 0.000637
        },
        "different": {
          "m": 0.003043,
          "u": 0.9991
        }
      },
      "title": {
        "exact": {
          "m": 0.9461,
          "u": 0.009109
        },
        "close": {
          "m": 0.02905,
          "u": 0.01377
        },
        "partial": {
          "m": 0.01245,
          "u": 0.06154
        },
        "different": {
          "m": 0.01245,
          "u": 0.9156
        }
      },
      "location": {
        "exact": {
          "m": 0.9812,
          "u": 0.02193
        },
        "close": {
          "m": 0.00625,
          "u": 0.0003509
        },
        "partial": {
          "m": 0.00375,
          "u": 0.04181
        },
        "different": {
          "m": 0.00875,
          "u": 0.9359
        }
      },
      "school": {
        "exact": {
          "m": 0.9661,
          "u": 0.01816
        },
        "close": {
          "m": 0.01695,
          "u": 0.01625
        },
        "different": {
          "m": 0.01695,
          "u": 0.9656
        }
      }
    },
    "calibration": {
      "a": 1.75,
      "b": -24
    }
  },
  "company": {
    "fields": {
      "name": {
        "exact": {
          "m": 0.8103,
          "u": 0.0002384
        },
        "close": {
          "m": 0.05962,
          "u": 0.0003973
        },
        "former": {
          "m": 0.09675,
          "u": 0.00004767
        },
        "partial": {
          "m": 0.0004065,
          "u": 0.0009534
        },
        "different": {
          "m": 0.03293,
          "u": 0.9984
        }
      },
      "domain": {
        "exact": {
          "m": 0.996,
          "u": 0.000009706
        },
        "different": {
          "m": 0.004011,
          "u": 1
        }
      },
      "location": {
        "exact": {
          "m": 0.9648,
          "u": 0.01966
        },
        "close": {
          "m": 0.01172,
          "u": 0.0007371
        },
        "partial": {
          "m": 0.007031,
          "u": 0.02641
        },
        "different": {
          "m": 0.01641,
          "u": 0.9532
        }
      }
    },
    "calibration": {
      "a": 1.85,
      "b": -9.325
    }
  }
};
