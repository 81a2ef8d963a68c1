/** getPerson and checkPerson: single-record reads from the lake (answers: lake/presence.ts). */
import type { Knex } from 'knex';
import { findPersonFreshness, findPersonJson } from '../../db/repositories/personRecords';
import type { PersonKey } from '../../model/identifiers';
import { checkedOr451, foundOr451Or404, type RecordCheck } from '../lake/presence';

/** The record as stored, as JSON text (callers that only pass it on need not parse it). */
export function getPerson(db: Knex, key: PersonKey): Promise<string> {
  // Found (the usual answer): no further step; otherwise the 451/404 decision.
  return findPersonJson(db, key.by, key.value).then((text) => (text !== undefined ? text : foundOr451Or404<string>(db, 'person', key, undefined)));
}

export async function checkPerson(db: Knex, key: PersonKey): Promise<RecordCheck> {
  return checkedOr451(db, 'person', key, await findPersonFreshness(db, key.by, key.value));
}
