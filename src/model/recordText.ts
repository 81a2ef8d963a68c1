/**
 * The text a lake record is served as. A re-verification (only `fetched_at` moved) leaves the stored
 * text as it was and keeps the new value beside it, in `fetched_at_text` (migration
 * 20261207000100_spliced_fetched_at): the served text is the stored one with that value put in place
 * of the one after its `"fetched_at":"`. The repositories splice it here, in Node, as they read a
 * row (a string search: about a microsecond for a 4.7 KB record; the same in SQL costs 15-35 µs a
 * row, character positions in UTF-8 text being counted from the start). The SQL twin,
 * `lake_record_text(record, fetched_at_text)`, is there for SQL that reads the lake directly; a test
 * ties the two (test/integration/lake/splicedFetchedAt.test.ts). The writer decides when a splice
 * stands for the record (domain/lake/write/splice.ts).
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

/** The served text of a lake row: its stored text, with the `fetched_at` of its last re-verification if any. */
export function servedText(stored: string, fetchedAtText: string | null): string {
  return fetchedAtText === null ? stored : (spliceFetchedAt(stored, fetchedAtText) ?? stored);
}
