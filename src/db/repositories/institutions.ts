/** SQL of the institutions operations: listAlumni. */
import type { Knex } from 'knex';
import { hasSchool, listPersons, ID_ORDER, type PersonSearchHit } from './personHits';
import type { ListResult, Page } from './pages';

export function listAlumni(db: Knex, school: string, page: Page): Promise<ListResult<PersonSearchHit>> {
  return listPersons(
    db,
    {
      where: (qb) => qb.whereExists(hasSchool(school)),
      order: ID_ORDER,
      // Education rows go with their person (on delete cascade), so they alone give the count.
      matches: () => db('person_educations').whereRaw('lower(school_name) = lower(?)', [school]).distinct('person_id'),
    },
    page,
  );
}

