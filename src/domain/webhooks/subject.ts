/**
 * The `subject` of a webhook payload and of a feed event: who the event is about (type, id in this
 * service, username, network URL), so a receiver needs no `GET /monitors/{id}` to learn it. One
 * place builds it for change events and for `monitor.test`.
 */
import type { components } from '../../../generated/types';
import { findSubjectByUsername } from '../../db/repositories/eventSubjects';
import type { Knex } from 'knex';

export type EventSubject = components['schemas']['EventSubject'];

const SECTION = { person: 'in', company: 'company' } as const;

/** The lake row's identifiers; `network_url` is the record's own (what the lookup returns). */
export function subjectOf(type: 'person' | 'company', row: { id: string | null; username: string; network_url: string | null }): EventSubject {
  return {
    type,
    id: row.id,
    username: row.username,
    network_url: row.network_url ?? `https://www.linkedin.com/${SECTION[type]}/${encodeURIComponent(row.username)}/`,
  };
}

/** A monitor's subject for `monitor.test`: from the lake when the record is there, else from its slug. */
export async function monitorSubject(db: Knex, type: 'person' | 'company', slug: string): Promise<EventSubject> {
  const row = await findSubjectByUsername(db, type, slug);
  return subjectOf(type, row ?? { id: null, username: slug, network_url: null });
}
