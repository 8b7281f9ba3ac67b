// The SQLite migration that lets users' caps be null (docs/plans.md, "Caps") rebuilds the users
// table. On a database made by the migrations before it, holding users with their sessions and
// devices: every row keeps its numbers, no row that refers to a user is lost (the rebuild runs with
// foreign keys off: docs/architecture.md, "Persistence notes"), and every index and foreign key holds.
import { getTableColumns, getTableName } from 'drizzle-orm';
import type { SQLiteTable } from 'drizzle-orm/sqlite-core';
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

/** Inserts `row` as the schema before the migration has it: columns added later are left out. */
function insertAsBefore(client: Database.Database, table: SQLiteTable, row: object): void {
  const present = new Set((client.pragma(`table_info(${getTableName(table)})`) as Array<{ name: string }>).map((c) => c.name));
  const columns = getTableColumns(table) as Record<string, { name: string }>;
  const entries = Object.entries(row)
    .map(([key, value]) => [columns[key]?.name ?? key, typeof value === 'boolean' ? Number(value) : value] as const)
    .filter(([name]) => present.has(name));
  client.prepare(`insert into ${getTableName(table)} (${entries.map(([name]) => name).join(', ')}) values (${entries.map(() => '?').join(', ')})`).run(...entries.map(([, value]) => value));
}

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
  const owner = makeOwner();
  const app = makeApp(owner.id);
  const users = [makeUser(app.id, { allowedDevices: 0, allowedSessions: 7 }), makeUser(app.id, { allowedDevices: 3, allowedSessions: 1 })];
  insertAsBefore(client, t.owners, owner);
  insertAsBefore(client, t.applications, applicationRow(app));
  for (const u of users) {
    insertAsBefore(client, t.users, userRow(u));
    insertAsBefore(client, t.sessions, makeSession(app.id, u.id));
    insertAsBefore(client, t.devices, { id: `${u.id}-hw`, userId: u.id, hardwareId: 'hw-1', registeredAt: T0 });
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
