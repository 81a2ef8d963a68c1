/** listAlumni: people whose education history includes a school. SQL: db/repositories/institutions.ts. */
import type { Knex } from 'knex';
import { listAlumni as listAlumniRows } from '../../db/repositories/institutions';
import type { PersonSearchHit } from '../../db/repositories/personHits';
import { listed, pageOf, type ListBody, type PageRequest } from '../paging';

export async function listAlumni(db: Knex, school: string, req: PageRequest): Promise<ListBody<PersonSearchHit>> {
  const paging = pageOf(req, 'listAlumni');
  return listed(paging, (page) => listAlumniRows(db, school, page));
}
