/**
 * How the lake row of a re-verified record (the same content, a new `fetched_at`) moves to its new
 * text: usually not at all, its new `fetched_at` kept beside the stored text and spliced in as it is
 * read (model/recordText.ts). The writer takes that path only when the splice gives exactly the text
 * it would otherwise store, so a read returns the same text either way.
 */
import type { TouchRow } from '../../../db/repositories/lakeTables';
import { spliceFetchedAt } from '../../../model/recordText';

/** How the row's text moves: a whole new `record`, or a `fetchedAtText` to splice in, or neither (lakeTables.ts). */
export type Reverification = Pick<TouchRow, 'record' | 'fetchedAtText'>;

/** The cheapest way to store `nextText` over `storedText` (as served), both saying the same apart from fetched_at. */
export function reverification(storedText: string, nextText: string, fetchedAt: string): Reverification {
  if (storedText === nextText) return { record: null, fetchedAtText: null };
  if (spliceFetchedAt(storedText, fetchedAt) === nextText) return { record: null, fetchedAtText: fetchedAt };
  return { record: nextText, fetchedAtText: null };
}
