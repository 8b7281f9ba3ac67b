// The hot reads of the SQLite dialect answered from memory while the database file is unchanged.
//
// `PRAGMA data_version` on a connection changes whenever any other connection commits to the
// file: this process's writer, or any other process's. The reads run on the read-only
// connection, which never commits, so every change to the file shows there; checked before each
// read (about 1.5 µs, against 3-17 µs for the reads it spares), a remembered answer is exactly
// what the read would return at that moment. A ban, a revoked session or a changed variable is
// therefore seen by the next request of every instance, as without the memory
// (docs/performance.md, app_context). Answers are frozen: they are shared between callers.
import type Database from 'better-sqlite3';
import type { PreparedRead, ReadParams } from './prepared-read.js';

/** Answers kept per read at most (a few MB over all the reads); past it that read's memory starts over. */
const KEPT_PER_READ = 4_096;

/** A function that wraps a prepared read on `reader` so that it remembers its answers while the file is unchanged. */
export function whileUnchanged(reader: Database.Database): <Row>(read: PreparedRead<Row>) => PreparedRead<Row> {
  const version = reader.prepare<[], number>('PRAGMA data_version').pluck();
  let seen = version.get();
  const memories = new Set<Map<string, unknown[]>>();
  const forgetIfChanged = () => {
    const current = version.get();
    if (current === seen) return;
    seen = current;
    for (const memory of memories) memory.clear();
  };
  return <Row>(read: PreparedRead<Row>): PreparedRead<Row> => {
    const memory = new Map<string, Row[]>();
    memories.add(memory as Map<string, unknown[]>);
    return (params: ReadParams) => {
      forgetIfChanged();
      const key = keyOf(params);
      const known = memory.get(key);
      if (known !== undefined) return known;
      const rows = Object.freeze(read(params).map((row) => Object.freeze(row))) as Row[];
      if (memory.size >= KEPT_PER_READ) memory.clear();
      memory.set(key, rows);
      return rows;
    };
  };
}

/**
 * The placeholder values as one text that no other values give: each name and value with its
 * length, and the value's type (the number 1 and the text '1' are different keys).
 */
function keyOf(params: ReadParams): string {
  let key = '';
  for (const name in params) {
    const value = params[name];
    const text = String(value);
    key += `${name.length}:${name}${typeof value === 'string' ? 's' : value === null ? 'n' : 'd'}${text.length}:${text}`;
  }
  return key;
}
