/**
 * A re-verified record's stored text with its new `fetched_at`, as the database computes it when it
 * reads the text: `lake_record_text(record, fetched_at_text)` (migration
 * 20261207000100_spliced_fetched_at) puts `fetched_at_text` in place of the value after the text's
 * first `"fetched_at":"`. This is that function's twin: the writer stores a re-verification as the
 * two narrow columns only when the splice gives exactly the text it would otherwise write, so a read
 * returns the same text either way. Tied to the SQL by test/integration/lake/splicedFetchedAt.test.ts.
 */
const KEY = '"fetched_at":"';
// A value that JSON.stringify would escape is not spliced: the text would hold it escaped.
const NEEDS_ESCAPE = /["\\\u0000-\u001f]/;

/**
 * `text` with `value` as its `fetched_at`, or undefined when the splice cannot stand for the record:
 * no `"fetched_at":"` key or more than one (in JSON text those unescaped quotes can only be a key;
 * one is the record's own), or a value JSON would escape.
 */
export function spliceFetchedAt(text: string, value: string): string | undefined {
  const at = text.indexOf(KEY);
  if (at < 0 || text.includes(KEY, at + 1) || NEEDS_ESCAPE.test(value)) return undefined;
  const start = at + KEY.length;
  return text.slice(0, start) + value + text.slice(text.indexOf('"', start));
}

/** How the lake row of an unchanged record moves to its new text (lakeTables.ts touchRecords). */
export interface Reverification {
  /** The new text to store whole; null when the stored one stands (same text, or spliced). */
  record: string | null;
  /** The new `fetched_at` value to splice in at read time; null when the text is stored whole or unchanged. */
  fetchedAtText: string | null;
}

/** The cheapest way to store `nextText` over `storedText` (as read), both saying the same apart from fetched_at. */
export function reverification(storedText: string, nextText: string, fetchedAt: string): Reverification {
  if (storedText === nextText) return { record: null, fetchedAtText: null };
  if (spliceFetchedAt(storedText, fetchedAt) === nextText) return { record: null, fetchedAtText: fetchedAt };
  return { record: nextText, fetchedAtText: null };
}
