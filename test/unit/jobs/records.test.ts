/** The upload's bytes into rows (domain/jobs/records.ts, upload.ts UploadReader): bad input fails single rows. */
import { UploadReader } from '../../../src/domain/jobs/upload';
import { mapColumns, mappingIsUsable } from '../../../src/domain/jobs/columns';
import { MAX_RECORD_BYTES } from '../../../src/domain/jobs/records';

function read(format: 'csv' | 'ndjson', chunks: Buffer[]) {
  const r = new UploadReader(format, {}, { maxRows: 1_000_000 });
  const rows = chunks.flatMap((c) => r.push(c));
  rows.push(...r.end());
  return rows.map((row) => ({ no: row.row_no, input: JSON.parse(row.input), problem: row.problem }));
}

/** Every byte boundary is a chunk boundary somewhere: the same rows whatever the chunking. */
const bytewise = (text: string | Buffer) => [...Buffer.from(text)].map((b) => Buffer.from([b]));

describe('UploadReader', () => {
  it('reads a BOM, semicolons, quotes with line ends and "" inside, CRLF, and blank lines, in any chunking', () => {
    const text = '\ufeffname;company;email\r\n"Doe, Jane";"Acme ""Labs""\nInc";j@acme.com\r\n\r\nBo;B;b@b.com\n';
    const expected = [
      { no: 1, input: ['Doe, Jane', 'Acme "Labs"\nInc', 'j@acme.com'], problem: null },
      { no: 2, input: ['Bo', 'B', 'b@b.com'], problem: null },
    ];
    expect(read('csv', [Buffer.from(text)])).toEqual(expected);
    expect(read('csv', bytewise(text))).toEqual(expected);
  });

  it('fails only the bad rows: invalid UTF-8, NUL, ragged, a field over the record bound, an unclosed quote at the end', () => {
    const rows = read('csv', [
      Buffer.from('email,name\na@x.com,A\n'),
      Buffer.from([0x62, 0x40, 0x78, 0x2c, 0xff, 0x0a]),
      Buffer.from('c@x.com,C\u0000\nd@x.com\n'),
      Buffer.from(`e@x.com,${'z'.repeat(MAX_RECORD_BYTES + 10)}\n`),
      Buffer.from('f@x.com,F\ng@x.com,"never\nclosed\n'),
    ]);
    expect(rows.map((r) => [r.no, r.problem])).toEqual([
      [1, null],
      [2, 'invalid UTF-8'],
      [3, 'NUL character in a field'],
      [4, 'ragged row: 1 field where the header has 2'],
      [5, expect.stringMatching(/^row longer than 1048576 bytes/)],
      [6, null],
      [7, expect.stringMatching(/^unbalanced quote/)],
    ]);
    // NUL is not stored (PostgreSQL cannot hold it).
    expect(rows[2]!.input).toEqual(['c@x.com', 'C']);
  });

  it('reads NDJSON: the first object\'s keys are the columns, bad lines fail alone', () => {
    const rows = read('ndjson', [Buffer.from('{"email":"a@x.com","n":1}\n[1]\n{"email":"b@x.com"}\n{oops\n')]);
    expect(rows).toEqual([
      { no: 1, input: ['a@x.com', '1'], problem: null },
      { no: 2, input: [], problem: 'not a JSON object' },
      { no: 3, input: ['b@x.com', ''], problem: null },
      { no: 4, input: [], problem: 'not valid JSON' },
    ]);
  });

  it.each([
    ['owner,notes\nx,y\n', /Columns seen: "owner", "notes"/],
    ['email,EMAIL\n', /Duplicate header/],
  ])('refuses the upload %j', (text, message) => {
    expect(() => read('csv', [Buffer.from(text)])).toThrow(message);
  });
});

describe('header recognition', () => {
  it('recognises the usual spellings and cases, and an explicit mapping wins', () => {
    const m = mapColumns(['First Name', 'LAST_NAME', 'Company Website', 'E-mail Address', 'LinkedIn URL', 'Job Title', 'City', 'Country']);
    expect(m).toEqual({ first_name: 0, last_name: 1, company_domain: 2, email: 3, network_url: 4, title: 5, city: 6, country: 7 });
    expect(mapColumns(['Who', 'Mail'], { name: 'Who' })).toEqual({ name: 0, email: 1 });
    expect(mappingIsUsable({ name: 0 })).toBe(false);
    expect(mappingIsUsable({ first_name: 0, last_name: 1, city: 2 })).toBe(true);
  });
});
