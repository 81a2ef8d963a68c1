import { countStatements } from '../../../src/db/migrations/statements';

describe('countStatements (one DDL statement per migration call)', () => {
  it('counts statements separated by semicolons, ignoring empty ones', () => {
    expect(countStatements('create table a (x int)')).toBe(1);
    expect(countStatements('create table a (x int);')).toBe(1);
    expect(countStatements('  create table a (x int);\n\n  create index on a (x);\n')).toBe(2);
    expect(countStatements(';;')).toBe(0);
  });

  it('does not count semicolons inside strings, quoted names, dollar quotes or comments', () => {
    expect(countStatements("comment on table a is 'x; y'")).toBe(1);
    expect(countStatements('create table "a;b" (x int)')).toBe(1);
    expect(countStatements("create function f() returns int language sql as $$ select 1; select 2; $$")).toBe(1);
    expect(countStatements('create function f() returns int language plpgsql as $body$ begin return 1; end $body$')).toBe(1);
    expect(countStatements('create table a (x int) -- a; b\n')).toBe(1);
    expect(countStatements('create table a (x int) /* a; /* nested; */ b; */')).toBe(1);
    expect(countStatements("select 'it''s; fine'")).toBe(1);
  });

  it('sees a second statement after a function body or a comment', () => {
    expect(countStatements('create function f() returns int language sql as $$ select 1 $$; create index on a (x)')).toBe(2);
    expect(countStatements('-- first\ncreate table a (x int);\n/* then */ drop table b')).toBe(2);
  });
});
