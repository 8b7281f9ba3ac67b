// The SQLite migration that lets users' caps be null (docs/plans.md, "Caps") rebuilds the users
// table. On a database made by the migrations before it, holding users with their sessions and
// devices: every row keeps its numbers, no row that refers to a user is lost (the rebuild runs with
// foreign keys off: docs/architecture.md, "Persistence notes"), and every index and foreign key holds.
import { getTableColumns } from 'drizzle-orm';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { drizzle } from 'drizzle-orm/better-sqlite3';
import { migrate } from 'drizzle-orm/better-sqlite3/migrator';
import { afterEach, expect, it } from 'vitest';
import { migrationsFolder } from '../../src/adapters/persistence/dialect.js';
import { applicationRow, userRow } from '../../src/adapters/persistence/row-mappers.js';
import * as t from '../../src/adapters/persistence/sqlite/schema.js';
import { openSqliteStore } from '../../src/adapters/persistence/sqlite/sqlite-store.js';
import { makeApp, makeOwner, makeSession, makeUser, T0 } from './fixtures.js';

const CAPS_MIGRATION = '0032_user_caps_nullable';
let dir = '';
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** A copy of the migrations without the caps one and those after it. */
function migrationsBefore(tag: string): string {
  const folder = join(dir, 'migrations');
  cpSync(migrationsFolder('sqlite'), folder, { recursive: true });
  const journalPath = join(folder, 'meta', '_journal.json');
  const journal = JSON.parse(readFileSync(journalPath, 'utf8')) as { entries: Array<{ idx: number; tag: string }> };
  const at = journal.entries.findIndex((e) => e.tag === tag);
  expect(at).toBeGreaterThan(0);
  writeFileSync(journalPath, JSON.stringify({ ...journal, entries: journal.entries.slice(0, at) }));
  return folder;
}

it('keeps every user, their numbers, their sessions and devices, and every index', async () => {
  dir = mkdtempSync(join(tmpdir(), 'gatehouse-caps-migration-'));
  const path = join(dir, 'gatehouse.db');
  const client = new Database(path);
  client.pragma('foreign_keys = ON');
  migrate(drizzle({ client }), { migrationsFolder: migrationsBefore(CAPS_MIGRATION) });
  const db = drizzle({ client });
  const owner = makeOwner();
  const app = makeApp(owner.id);
  const users = [makeUser(app.id, { allowedDevices: 0, allowedSessions: 7 }), makeUser(app.id, { allowedDevices: 3, allowedSessions: 1 })];
  db.insert(t.owners).values(owner).run();
  db.insert(t.applications).values(applicationRow(app)).run();
  for (const u of users) {
    // Columns added after the caps migration are not there yet: the row as that schema has it.
    const { holdsAddOns: _later, ...before } = userRow(u);
    const columns = getTableColumns(t.users);
    const entries = Object.entries(before).map(([key, value]) => [columns[key as keyof typeof columns].name, typeof value === 'boolean' ? Number(value) : value] as const);
    client.prepare(`insert into users (${entries.map(([name]) => name).join(', ')}) values (${entries.map(() => '?').join(', ')})`).run(...entries.map(([, value]) => value));
    db.insert(t.sessions).values(makeSession(app.id, u.id)).run();
    db.insert(t.devices)
      .values({ id: `${u.id}-hw`, userId: u.id, hardwareId: 'hw-1', registeredAt: T0 })
      .run();
  }
  const indexesBefore = client.prepare("select name, sql from sqlite_master where type = 'index' and tbl_name = 'users' order by name").all();
  client.close();

  const store = openSqliteStore({ path });
  try {
    for (const u of users) expect(await store.findUserById(app.id, u.id)).toEqual(u);
    const after = new Database(path, { readonly: true });
    try {
      expect(after.prepare('select count(*) as n from sessions').get()).toEqual({ n: 2 });
      expect(after.prepare('select count(*) as n from devices').get()).toEqual({ n: 2 });
      expect(after.prepare("select name, sql from sqlite_master where type = 'index' and tbl_name = 'users' order by name").all()).toEqual(indexesBefore);
      expect(after.pragma('foreign_key_list(users)')).toMatchObject([{ table: 'applications', from: 'application_id', to: 'id', on_delete: 'CASCADE' }]);
      expect(after.pragma('foreign_key_check')).toEqual([]);
      const columns = after.pragma('table_info(users)') as Array<{ name: string; notnull: number }>;
      expect(columns.filter((c) => c.name.startsWith('allowed_'))).toMatchObject([
        { name: 'allowed_devices', notnull: 0 },
        { name: 'allowed_sessions', notnull: 0 },
      ]);
    } finally {
      after.close();
    }
    // A user without an override is stored so, and the references still cascade.
    await store.updateUserLimits(app.id, users[0]!.id, { allowedDevices: null });
    expect(await store.findUserById(app.id, users[0]!.id)).toMatchObject({ allowedDevices: null, allowedSessions: 7 });
  } finally {
    await store.close();
  }
});
