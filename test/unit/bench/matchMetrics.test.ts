/** bench:match's figures (bench/matchMetrics.ts): precision, recall, false matches, ECE, computed by hand on small cases. */
import { expectedCalibrationError, figures, type Outcome } from '../../../bench/matchMetrics';

const o = (expectedId: string | null, answeredId: string | null, likelihood: number | null, best?: [string, number] | null): Outcome => ({
  noise: 'x', expectedId, answeredId, likelihood, best: best === undefined ? (answeredId && likelihood !== null ? { id: answeredId, likelihood } : null) : best && { id: best[0], likelihood: best[1] },
});

describe('bench:match figures', () => {
  it('precision counts absent people answered as wrong; recall is over the present ones; false matches over the absent', () => {
    const f = figures([
      o('a', 'a', 0.95), // right, confident
      o('b', 'c', 0.92), // wrong, confident
      o('d', null, null, ['d', 0.5]), // missed at the default bar, right below it
      o(null, 'e', 0.8), // absent, answered: a false match
      o(null, null, null, ['f', 0.1]), // absent, not answered
      { ...o('g', null, null), error: '500 ' },
    ]);
    expect(f).toMatchObject({ queries: 6, present: 3, absent: 2, answered: 3, correct: 1, errors: 1, confident: 2 });
    expect(f.precision).toBeCloseTo(1 / 3);
    expect(f.recall).toBeCloseTo(1 / 3);
    expect(f.falseMatchRate).toBeCloseTo(1 / 2);
    expect(f.confidentPrecision).toBeCloseTo(1 / 2);
  });

  it('ECE is zero when each bin is right as often as it says, and the weighted gap otherwise', () => {
    // 8 of 10 right at 0.75: one bin, gap 0.05; 3 of 4 right at 0.75: calibrated.
    expect(expectedCalibrationError([...Array(10)].map((_, k) => ({ p: 0.75, right: k < 8 })))).toBeCloseTo(0.05);
    expect(expectedCalibrationError([...Array(4)].map((_, k) => ({ p: 0.75, right: k < 3 })))).toBeCloseTo(0);
    expect(expectedCalibrationError([{ p: 0.95, right: true }, { p: 0.05, right: false }])).toBeCloseTo(0.05);
    // Two bins, half the points each: (0.5 * |0.9 - 0.5|) + (0.5 * |0.1 - 0|).
    expect(expectedCalibrationError([{ p: 0.9, right: true }, { p: 0.9, right: false }, { p: 0.1, right: false }, { p: 0.1, right: false }])).toBeCloseTo(0.25);
    expect(expectedCalibrationError([{ p: 1, right: true }])).toBe(0);
    expect(expectedCalibrationError([])).toBeNaN();
  });
});
