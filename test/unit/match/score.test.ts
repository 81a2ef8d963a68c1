/** Stages 4 and 5 of matching: weights (score.ts) and likelihoods (calibrate.ts). */
import { likelihoods, probabilityOf } from '../../../src/domain/match/calibrate';
import type { Level } from '../../../src/domain/match/compare';
import { PARAMETERS } from '../../../src/domain/match/parameters';
import { scoreOf, weigh, weightOf } from '../../../src/domain/match/score';

describe('weights', () => {
  it('agreement weighs positive, disagreement negative, a value missing in the record nothing', () => {
    for (const [field, levels] of Object.entries(PARAMETERS.person.fields)) {
      if (levels.exact) expect(weightOf('person', field, 'exact')).toBeGreaterThan(0);
      if (levels.different) expect(weightOf('person', field, 'different')).toBeLessThan(0);
      expect(weightOf('person', field, 'missing_in_record')).toBe(0);
    }
  });

  it('orders the name levels: exact, nickname and close far above partial, partial above different', () => {
    const w = (l: Level) => weightOf('person', 'name', l);
    for (const agree of ['exact', 'nickname', 'close'] as const) expect(w(agree)).toBeGreaterThan(w('partial') + 5);
    expect(w('partial')).toBeGreaterThan(w('different'));
    expect(w('different')).toBeLessThan(0);
  });

  it('is log2(m/u), summed', () => {
    const p = PARAMETERS.person.fields.name!.exact!;
    const weighed = weigh('person', [{ field: 'name', level: 'exact', input: 'a b', record: 'a b' }, { field: 'title', level: 'missing_in_record', input: 'x', record: null }]);
    expect(weighed[0]!.weight).toBeCloseTo(Math.log2(p.m / p.u), 1);
    expect(scoreOf(weighed)).toBeCloseTo(weighed[0]!.weight, 6);
  });
});

describe('likelihoods', () => {
  const c = { a: 1, b: -4 };
  it('a lone candidate keeps its probability; a higher score a higher one', () => {
    const [one] = likelihoods([10], c);
    expect(one!.likelihood).toBeCloseTo(probabilityOf(10, c), 2);
    expect(one!.ambiguous).toBe(false);
    expect(probabilityOf(12, c)).toBeGreaterThan(probabilityOf(8, c));
  });

  it('two equally strong candidates share it: neither is claimed high, both ambiguous', () => {
    const [a, b] = likelihoods([20, 20], c);
    expect(a!.likelihood).toBeLessThanOrEqual(0.5);
    expect(b!.likelihood).toBeLessThanOrEqual(0.5);
    expect(a!.ambiguous && b!.ambiguous).toBe(true);
  });

  it('a far weaker rival takes almost nothing and makes nothing ambiguous', () => {
    const [a, b] = likelihoods([20, 2], c);
    expect(a!.likelihood).toBeGreaterThan(0.99);
    expect(b!.likelihood).toBeLessThan(0.01);
    expect(a!.ambiguous).toBe(false);
  });

  it('never answers 1 for a guess', () => {
    expect(likelihoods([1000], c)[0]!.likelihood).toBeLessThan(1);
  });
});
