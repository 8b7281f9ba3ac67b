/** A single satisfiable byte range, inclusive. */
export interface ByteRange {
  start: number;
  end: number;
}

/** The `Range` header against a representation of `size` bytes: null to serve it whole (no header,
 * another unit, several ranges, or a malformed one, all of which RFC 9110 lets a server ignore),
 * 'unsatisfiable' for a well-formed range that misses it. */
export function parseByteRange(header: string | undefined, size: number): ByteRange | 'unsatisfiable' | null {
  if (header === undefined) return null;
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (match === null) return null;
  const [, first = '', last = ''] = match;
  if (first === '' && last === '') return null;
  // Positions of any length are numbers (RFC 9110, 14.1.2): a last position or suffix length
  // past the end is clamped to it, a first position past the end is unsatisfiable. Number() of
  // a long digit string is merely large (or Infinity), which compares the same way.
  if (first === '') {
    const suffix = Number(last);
    if (suffix === 0 || size === 0) return 'unsatisfiable';
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(first);
  const end = last === '' ? size - 1 : Math.min(Number(last), size - 1);
  if (last !== '' && Number(last) < start) return null;
  if (start >= size) return 'unsatisfiable';
  return { start, end };
}
