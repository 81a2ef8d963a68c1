/** `enrich import`'s progress counts records: the total is extrapolated from the bytes read, exact at the end. */
import { recordEstimate } from '../../../src/cli/importProgress';
import { formatEta } from '../../../src/cli/progress';

describe('recordEstimate', () => {
  it('extrapolates the record total from the share of the file read', () => {
    expect(recordEstimate({ lines: 250, bytesRead: 1_000, totalBytes: 4_000 })).toEqual({ done: 250, total: 1_000 });
  });
  it('is exact once the whole file is read (gzip: compressed bytes reach the file size)', () => {
    expect(recordEstimate({ lines: 997, bytesRead: 4_000, totalBytes: 4_000 })).toEqual({ done: 997, total: 997 });
  });
  it('never estimates fewer records than already counted, nor divides by nothing read', () => {
    expect(recordEstimate({ lines: 10, bytesRead: 3_999, totalBytes: 4_000 }).total).toBeGreaterThanOrEqual(10);
    expect(recordEstimate({ lines: 0, bytesRead: 0, totalBytes: 4_000 })).toEqual({ done: 0, total: 0 });
  });
});

describe('formatEta', () => {
  it('hours and minutes, minutes and seconds, seconds; unknown as -', () => {
    expect(formatEta(3_725)).toBe('1h02m');
    expect(formatEta(185)).toBe('3m05s');
    expect(formatEta(42.4)).toBe('42s');
    expect(formatEta(Infinity)).toBe('-');
  });
});
