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
          "m": 0.8312,
          "u": 0.03455
        },
        "nickname": {
          "m": 0.06377,
          "u": 0.005188
        },
        "close": {
          "m": 0.07226,
          "u": 0.003493
        },
        "partial": {
          "m": 0.008682,
          "u": 0.8582
        },
        "different": {
          "m": 0.02413,
          "u": 0.09853
        }
      },
      "company": {
        "exact": {
          "m": 0.8616,
          "u": 0.616
        },
        "close": {
          "m": 0.02537,
          "u": 0.02842
        },
        "former": {
          "m": 0.1124,
          "u": 0.1725
        },
        "different": {
          "m": 0.0006098,
          "u": 0.183
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
          "u": 0.7639
        },
        "close": {
          "m": 0.002137,
          "u": 0.0003606
        },
        "former": {
          "m": 0.004274,
          "u": 0.2014
        },
        "different": {
          "m": 0.002137,
          "u": 0.03425
        }
      },
      "email": {
        "exact": {
          "m": 0.7678,
          "u": 0.06039
        },
        "nickname": {
          "m": 0.003055,
          "u": 0.0002463
        },
        "close": {
          "m": 0.003055,
          "u": 0.009236
        },
        "partial": {
          "m": 0.223,
          "u": 0.01153
        },
        "different": {
          "m": 0.003055,
          "u": 0.9186
        }
      },
      "title": {
        "exact": {
          "m": 0.9461,
          "u": 0.07736
        },
        "close": {
          "m": 0.02905,
          "u": 0.1141
        },
        "partial": {
          "m": 0.01245,
          "u": 0.5194
        },
        "different": {
          "m": 0.01245,
          "u": 0.2891
        }
      },
      "location": {
        "exact": {
          "m": 0.9812,
          "u": 0.4168
        },
        "close": {
          "m": 0.00625,
          "u": 0.0004518
        },
        "partial": {
          "m": 0.00375,
          "u": 0.5651
        },
        "different": {
          "m": 0.00875,
          "u": 0.01762
        }
      },
      "school": {
        "exact": {
          "m": 0.9661,
          "u": 0.632
        },
        "close": {
          "m": 0.01695,
          "u": 0.2962
        },
        "different": {
          "m": 0.01695,
          "u": 0.07179
        }
      }
    },
    "calibration": {
      "a": 0.9687,
      "b": 4.375
    }
  },
  "company": {
    "fields": {
      "name": {
        "exact": {
          "m": 0.8375,
          "u": 0.1974
        },
        "close": {
          "m": 0.05882,
          "u": 0.4004
        },
        "former": {
          "m": 0.1,
          "u": 0.001107
        },
        "partial": {
          "m": 0.003221,
          "u": 0.3247
        },
        "different": {
          "m": 0.0004202,
          "u": 0.07638
        }
      },
      "domain": {
        "exact": {
          "m": 0.996,
          "u": 0.2113
        },
        "different": {
          "m": 0.004011,
          "u": 0.7887
        }
      },
      "location": {
        "exact": {
          "m": 0.9648,
          "u": 0.07143
        },
        "close": {
          "m": 0.01172,
          "u": 0.01071
        },
        "partial": {
          "m": 0.007031,
          "u": 0.02679
        },
        "different": {
          "m": 0.01641,
          "u": 0.8911
        }
      }
    },
    "calibration": {
      "a": 1.081,
      "b": 4.375
    }
  }
};
