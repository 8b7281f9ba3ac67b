// The SQLite dialect's memory of its hot reads (sqlite/unchanged-reads.ts): an answer is read
// again once any connection committed to the file (another process's commit from the next
// event-loop turn, this process's at once), values that merely print alike are never taken for
// one another, and what it hands out cannot be changed by a caller.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ReadParams } from '../../src/adapters/persistence/fast/sqlite-prepared-read.js';
import { committedHere, whileUnchanged } from '../../src/adapters/persistence/fast/unchanged-reads.js';

/** The next event-loop turn, where a request read from a socket after a commit is handled. */
const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

describe('reads remembered while the file is unchanged', () => {
  let dir = '';
  let writer: Database.Database;
  let reader: Database.Database;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'gatehouse-unchanged-'));
    writer = new Database(join(dir, 'db'));
    writer.pragma('journal_mode = WAL');
    writer.exec('create table t (k text primary key, v text)');
    writer.prepare('insert into t values (?, ?)').run('a', 'first');
    reader = new Database(join(dir, 'db'), { readonly: true });
  });
  afterEach(async () => {
    reader.close();
    writer.close();
    await rm(dir, { recursive: true, force: true });
  });

  /** The value of row `k`, counting the reads that reached the database. */
  function countedRead() {
    const statement = reader.prepare<[string], { v: string }>('select v from t where k = ?');
    const calls: ReadParams[] = [];
    const read = (params: ReadParams) => {
      calls.push(params);
      return statement.all(String(params['k']));
    };
    return { read, calls };
  }

  it('reads again after a commit on another connection, and not before', async () => {
    const { read, calls } = countedRead();
    const remembered = whileUnchanged(reader)(read);
    expect(remembered({ k: 'a' })).toEqual([{ v: 'first' }]);
    await nextTurn();
    expect(remembered({ k: 'a' })).toEqual([{ v: 'first' }]);
    expect(calls).toHaveLength(1);
    writer.prepare('update t set v = ? where k = ?').run('second', 'a');
    await nextTurn();
    expect(remembered({ k: 'a' })).toEqual([{ v: 'second' }]);
    expect(calls).toHaveLength(2);
    // A commit that changes another row still makes every answer be read again.
    writer.prepare('insert into t values (?, ?)').run('b', 'other');
    await nextTurn();
    expect(remembered({ k: 'a' })).toEqual([{ v: 'second' }]);
    expect(calls).toHaveLength(3);
  });

  it('asks the file once a turn: another process’s commit shows from the next turn, this process’s at once', async () => {
    const { read, calls } = countedRead();
    const remembered = whileUnchanged(reader)(read);
    expect(remembered({ k: 'a' })).toEqual([{ v: 'first' }]);
    // Within the turn that asked, another process's commit is not looked for: every request
    // handled in this turn was read from its socket before that commit ended.
    writer.prepare('update t set v = ? where k = ?').run('second', 'a');
    expect(remembered({ k: 'a' })).toEqual([{ v: 'first' }]);
    expect(calls).toHaveLength(1);
    await nextTurn();
    expect(remembered({ k: 'a' })).toEqual([{ v: 'second' }]);
    // A commit of this process (its dialect calls committedHere after each write) shows at once.
    writer.prepare('update t set v = ? where k = ?').run('third', 'a');
    committedHere();
    expect(remembered({ k: 'a' })).toEqual([{ v: 'third' }]);
    expect(calls).toHaveLength(3);
  });

  it('forgets the answers of every read it wraps on a commit', async () => {
    const wrap = whileUnchanged(reader);
    const one = countedRead();
    const two = countedRead();
    const first = wrap(one.read);
    const second = wrap(two.read);
    first({ k: 'a' });
    second({ k: 'a' });
    writer.prepare('update t set v = ? where k = ?').run('second', 'a');
    await nextTurn();
    expect(second({ k: 'a' })).toEqual([{ v: 'second' }]);
    expect(first({ k: 'a' })).toEqual([{ v: 'second' }]);
    expect([one.calls.length, two.calls.length]).toEqual([2, 2]);
  });

  it('never takes values that print alike for one another', () => {
    const seen: string[] = [];
    const remembered = whileUnchanged(reader)((params: ReadParams) => {
      const answer = JSON.stringify(params);
      seen.push(answer);
      return [{ answer }];
    });
    const cases: ReadParams[] = [{ a: '1' }, { a: 1 }, { a: null }, { a: 'null' }, { a: 'x', b: 'yz' }, { a: 'xy', b: 'z' }, { a: '1:b' }, { a: '1', b: '' }];
    for (const params of cases) expect(remembered(params)).toEqual([{ answer: JSON.stringify(params) }]);
    expect(seen).toHaveLength(cases.length);
    for (const params of cases) expect(remembered(params)).toEqual([{ answer: JSON.stringify(params) }]);
    expect(seen).toHaveLength(cases.length);
  });

  it('hands out rows no caller can change', () => {
    const { read } = countedRead();
    const remembered = whileUnchanged(reader)(read);
    const rows = remembered({ k: 'a' }) as Array<{ v: string }>;
    expect(() => rows.pop()).toThrow(TypeError);
    expect(() => {
      (rows[0] as { v: string }).v = 'changed';
    }).toThrow(TypeError);
    expect(remembered({ k: 'a' })).toEqual([{ v: 'first' }]);
  });
});
