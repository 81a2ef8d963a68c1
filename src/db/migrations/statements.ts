/**
 * One SQL statement per migration call (CONVENTIONS.md, Citus-ready SQL): Citus runs a DDL string
 * on every worker as it is, and a string of several statements there fails or half-applies
 * (citusdata/citus#6608). A test (test/integration/lake/migrationStatements.test.ts) runs every
 * migration, splits each query it sends with `countStatements`, and refuses a string of several
 * statements in any migration after LAST_SHIPPED_MULTI_STATEMENT. The migrations up to it were
 * shipped before the rule (never edited, CONVENTIONS.md): they run by `enrich migrate` before
 * `enrich distribute` lays the lake out across nodes, on tables that are still local.
 */

/** The newest migration allowed to send several statements in one call; every later one sends one. */
export const LAST_SHIPPED_MULTI_STATEMENT = '20261203000200_count_index_only';

/**
 * The number of statements in `sql`: semicolons outside quotes ('...', "...", $tag$...$tag$) and
 * comments (-- and /* *\/), not counting empty statements (a trailing semicolon, blank lines).
 */
export function countStatements(sql: string): number {
  let count = 0;
  let content = false;
  let i = 0;
  const n = sql.length;
  while (i < n) {
    const c = sql[i]!;
    const next = sql[i + 1];
    if (c === '-' && next === '-') {
      const end = sql.indexOf('\n', i);
      i = end < 0 ? n : end + 1;
    } else if (c === '/' && next === '*') {
      // PostgreSQL block comments nest.
      let depth = 1;
      i += 2;
      while (i < n && depth > 0) {
        if (sql[i] === '/' && sql[i + 1] === '*') (depth++, (i += 2));
        else if (sql[i] === '*' && sql[i + 1] === '/') (depth--, (i += 2));
        else i++;
      }
    } else if (c === "'" || c === '"') {
      content = true;
      i++;
      while (i < n) {
        if (sql[i] === c && sql[i + 1] === c) i += 2;
        else if (sql[i] === c) break;
        else i++;
      }
      i++;
    } else if (c === '$' && /^\$[A-Za-z_]*\$/.test(sql.slice(i))) {
      const tag = /^\$[A-Za-z_]*\$/.exec(sql.slice(i))![0];
      content = true;
      const end = sql.indexOf(tag, i + tag.length);
      i = end < 0 ? n : end + tag.length;
    } else if (c === ';') {
      if (content) count++;
      content = false;
      i++;
    } else {
      if (!/\s/.test(c)) content = true;
      i++;
    }
  }
  return count + (content ? 1 : 0);
}
