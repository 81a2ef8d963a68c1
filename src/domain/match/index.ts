/** The match room's operations, for callers outside it (handlers import the modules directly; the CLI loads this). */
export { matchPerson } from './person';
export { matchCompany } from './company';
export { bulkMatchPeople } from './bulk';
