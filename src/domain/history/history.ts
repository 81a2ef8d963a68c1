/**
 * listPersonHistory and listCompanyHistory: a record's entries of the change log, newest first.
 * The record is found by the lookups' identifiers and the lookups' rule (lake/presence.ts): found,
 * else 451 when withdrawn, else 404. A withdrawal erases the history with the record (the change
 * log's entries lose their subject and diff in the withdrawal's transaction, lake/write/changes.ts),
 * so nothing here needs a rule of its own for it.
 */
import type { Knex } from 'knex';
import type { components } from '../../../generated/types';
import { listSubjectChanges, type HistoryRow } from '../../db/repositories/changeHistory';
import { findCompanyFreshness } from '../../db/repositories/companyRecords';
import { findPersonFreshness } from '../../db/repositories/personRecords';
import type { CompanyKey, PersonKey } from '../../model/identifiers';
import { foundOr451Or404 } from '../lake/presence';
import { listed, pageOf, type ListBody, type PageRequest } from '../paging';

export type HistoryEntry = components['schemas']['HistoryEntry'];
type FieldChange = components['schemas']['FieldChange'];

export interface HistoryRequest extends PageRequest {
  since?: string;
}

/**
 * The diff's `old_x`/`new_x` pairs as fields, in the diff's order, keeping those whose value
 * differs (a job change carries the title even when it stayed the same).
 */
export function fieldChanges(diff: Record<string, unknown>): FieldChange[] {
  const out: FieldChange[] = [];
  for (const key of Object.keys(diff)) {
    if (!key.startsWith('old_')) continue;
    const field = key.slice(4);
    const before = diff[key] ?? null;
    const after = diff[`new_${field}`] ?? null;
    if (JSON.stringify(before) === JSON.stringify(after)) continue;
    out.push({ field, old: before as FieldChange['old'], new: after as FieldChange['new'] });
  }
  return out;
}

function toEntry(row: HistoryRow): HistoryEntry {
  return {
    id: row.id,
    event: row.event as HistoryEntry['event'],
    changes: fieldChanges(row.diff),
    diff: row.diff,
    detected_at: row.detected_at.toISOString(),
    detected_by: row.origin,
  };
}

async function history(
  db: Knex,
  kind: 'person' | 'company',
  key: PersonKey | CompanyKey,
  req: HistoryRequest,
  operation: string,
): Promise<ListBody<HistoryEntry>> {
  const found = kind === 'person' ? await findPersonFreshness(db, (key as PersonKey).by, key.value) : await findCompanyFreshness(db, (key as CompanyKey).by, key.value);
  const subject = await foundOr451Or404(db, kind, key, found);
  // The cursor is bound to the record (its id, whichever identifier named it) and the filter.
  const paging = pageOf(req, operation, { id: subject.id, since: req.since });
  return listed(paging, async (page) => {
    const result = await listSubjectChanges(db, { kind, subjectId: subject.id, since: req.since }, page);
    return { ...result, rows: result.rows.map(toEntry) };
  });
}

export const listPersonHistory = (db: Knex, key: PersonKey, req: HistoryRequest) => history(db, 'person', key, req, 'listPersonHistory');
export const listCompanyHistory = (db: Knex, key: CompanyKey, req: HistoryRequest) => history(db, 'company', key, req, 'listCompanyHistory');
