// SQLite's hot reads answered from memory while `PRAGMA data_version` says the file is unchanged,
// asked once a turn and after this process's commits: as exact as asking before each read
// (docs/choices.md, "The content cache"). Answers are frozen: they are shared between callers.
import type Database from 'better-sqlite3';
import type { PreparedRead, ReadParams } from './sqlite-prepared-read.js';

/** Answers kept per read at most (a few MB over all the reads); past it that read's memory starts over. */
const KEPT_PER_READ = 4_096;

/** Commits made by this process's writers: each makes the next read ask data_version again. */
let commitsHere = 0;

/** Called by a dialect after each write of this process to a database file (its writer queue). */
export function committedHere(): void {
  commitsHere++;
}

/** A function that wraps a prepared read on `reader` so that it remembers its answers while the file is unchanged. */
export function whileUnchanged(reader: Database.Database): <Row>(read: PreparedRead<Row>) => PreparedRead<Row> {
  const version = reader.prepare<[], number>('PRAGMA data_version').pluck();
  let seen = version.get();
  const memories = new Set<Map<string, unknown[]>>();
  // Asked already in this turn, with this many commits of the process made by then.
  let askedThisTurn = false;
  let commitsWhenAsked = commitsHere;
  const nextTurn = () => {
    askedThisTurn = false;
  };
  const forgetIfChanged = () => {
    if (askedThisTurn && commitsWhenAsked === commitsHere) return;
    if (!askedThisTurn) {
      askedThisTurn = true;
      setImmediate(nextTurn);
    }
    commitsWhenAsked = commitsHere;
    const current = version.get();
    if (current === seen) return;
    seen = current;
    for (const memory of memories) memory.clear();
  };
  return <Row>(read: PreparedRead<Row>): PreparedRead<Row> => {
    const memory = new Map<string, Row[]>();
    memories.add(memory);
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

// The placeholder values as one text no other values give: each name and value with its length,
// and the value's type (the number 1 and the text '1' are different keys).
function keyOf(params: ReadParams): string {
  let key = '';
  for (const name in params) {
    const value = params[name];
    const text = String(value);
    key += `${name.length}:${name}${typeof value === 'string' ? 's' : value === null ? 'n' : 'd'}${text.length}:${text}`;
  }
  return key;
}
