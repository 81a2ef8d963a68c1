/**
 * The knex library, as one file where the build made one (scripts/build.js writes
 * dist/vendor/knex.js, knex and its dependencies bundled by esbuild), else the installed package.
 *
 * Why: `require('knex')` loads ~330 files (252 of them lodash's), and finding, reading and
 * compiling each was the largest part of every CLI command that opens the database: 0.19 s of CPU
 * against 0.11 s for the bundle, with bare node at 0.07 s (docs/benchmarks.md, the CLI's start-up).
 * The bundle is the same code (the installed version, bundled at each build); `pg` and the drivers
 * of other databases stay outside it, so knex finds the one `pg` this process loaded (db/pg.ts).
 * Under tsx and jest (src/, no dist/vendor beside it) the installed package is used.
 *
 * Every module of src/ takes knex from here (knex.ts, errors.ts), never both from here and from
 * 'knex', or an error class of one copy would not be an `instanceof` the other's.
 */
import fs from 'node:fs';
import path from 'node:path';

/** knex's PostgreSQL client class (not part of knex's typings): the class knex uses for client 'pg'. */
export type KnexClientClass = new (config: import('knex').Knex.Config) => import('knex').Knex.Client;

interface Library {
  knex: typeof import('knex');
  ClientPg: KnexClientClass;
}

// dist/src/db/ -> dist/vendor/knex.js; from src/db/ the path names nothing and the package is used.
const bundled = path.join(__dirname, '..', '..', 'vendor', 'knex.js');
/* eslint-disable @typescript-eslint/no-require-imports */
const library: Library = fs.existsSync(bundled)
  ? (require(bundled) as Library)
  : { knex: require('knex') as typeof import('knex'), ClientPg: require('knex/lib/dialects/postgres') as KnexClientClass };
/* eslint-enable @typescript-eslint/no-require-imports */

export const knexFactory = library.knex.knex;
export const KnexTimeoutError = library.knex.KnexTimeoutError;
export const KnexClientPg = library.ClientPg;
