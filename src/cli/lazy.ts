/**
 * The modules behind the commands, loaded when an action runs, never at startup: `enrich --help`
 * must not pay for the database driver, Koa, Ajv or the world generator. `require` (not `import()`,
 * which TypeScript keeps as a real ESM import under module node16) loads them synchronously in
 * CommonJS, the same way under node, tsx and jest. One place lists them, typed by the modules.
 */
export const load = {
  config: () => require('../config') as typeof import('../config'),
  database: () => require('../db/knex') as typeof import('../db/knex'),
  citusLayout: () => require('../db/citusLayout') as typeof import('../db/citusLayout'),
  server: () => require('../main') as typeof import('../main'),
  admin: () => require('../domain/workspaces/admin') as typeof import('../domain/workspaces/admin'),
  world: () => require('../world') as typeof import('../world'),
  seed: () => require('../world/seed') as typeof import('../world/seed'),
  importer: () => require('../domain/lake/importer') as typeof import('../domain/lake/importer'),
  identifiers: () => require('../domain/lake/identifiers') as typeof import('../domain/lake/identifiers'),
  suppression: () => require('../domain/lake/suppression') as typeof import('../domain/lake/suppression'),
  match: () => require('../domain/match') as typeof import('../domain/match'),
  errors: () => require('../domain/errors') as typeof import('../domain/errors'),
  recordSchemas: () => require('../http/recordSchemas') as typeof import('../http/recordSchemas'),
  progress: () => require('./progress') as typeof import('./progress'),
  importProgress: () => require('./importProgress') as typeof import('./importProgress'),
};
