/**
 * Lines of COPY's text format as buffers of about 256 KB, each one CopyData message and one socket
 * write. Each line is encoded (UTF-8) straight into the buffer: joining the lines into one string
 * first and encoding that made V8 flatten a rope of many small strings before encoding it, which
 * cost an order of magnitude more (25 MB of an initial load's person rows: 1.1–1.8 s joined and
 * encoded, 55–90 ms line by line into buffers, measured under load; issue 35). A Buffer among the
 * lines is taken as UTF-8 already. Pure.
 */
export function* copyChunks(lines: Iterable<string | Buffer>, size = 262_144): Generator<Buffer> {
  let buffer = Buffer.allocUnsafe(size);
  let at = 0;
  for (const line of lines) {
    if (typeof line !== 'string') {
      // Bytes already encoded (an initial load's stored text as read): copied as they are.
      if (at + line.length > buffer.length) {
        if (at > 0) yield buffer.subarray(0, at);
        buffer = Buffer.allocUnsafe(Math.max(size, line.length));
        at = 0;
      }
      at += line.copy(buffer, at);
      continue;
    }
    // A UTF-16 code unit takes at most 3 bytes of UTF-8 (a surrogate pair: 4 bytes for 2 units).
    const most = line.length * 3;
    if (at + most > buffer.length) {
      if (at > 0) yield buffer.subarray(0, at);
      buffer = Buffer.allocUnsafe(Math.max(size, most));
      at = 0;
    }
    at += buffer.write(line, at, 'utf8');
  }
  if (at > 0) yield buffer.subarray(0, at);
}
