import { copyChunks } from '../../../src/db/repositories/copyChunks';

describe('copyChunks', () => {
  const lines = [
    'plain ascii\n',
    'Zoë Müller\tŁódź\n',
    '漢字 and an emoji 😀 (a surrogate pair)\n',
    `${'x'.repeat(300)}\n`, // longer than the chunk size below: a chunk of its own
    '\n',
    'last line without a newline',
  ];

  it('yields exactly the UTF-8 bytes of the lines joined, in chunks of about the size asked', () => {
    for (const size of [8, 16, 64, 262_144]) {
      const chunks = [...copyChunks(lines, size)];
      expect(Buffer.concat(chunks).equals(Buffer.from(lines.join(''), 'utf8'))).toBe(true);
      // No chunk is empty; only a line that does not fit alone makes a chunk larger than `size`.
      for (const chunk of chunks) expect(chunk.length).toBeGreaterThan(0);
      if (size >= 262_144) expect(chunks).toHaveLength(1);
      else expect(chunks.length).toBeGreaterThan(1);
    }
  });

  it('copies Buffers among the lines as the bytes they are', () => {
    const mixed = ['head\t', Buffer.from('{"name":"Zoë 😀"}', 'utf8'), '\n', Buffer.from('y'.repeat(300)), 'tail\n'];
    const expected = Buffer.concat(mixed.map((l) => (typeof l === 'string' ? Buffer.from(l, 'utf8') : l)));
    for (const size of [8, 16, 64, 262_144]) expect(Buffer.concat([...copyChunks(mixed, size)]).equals(expected)).toBe(true);
  });

  it('yields nothing for no lines', () => {
    expect([...copyChunks([])]).toEqual([]);
  });
});
