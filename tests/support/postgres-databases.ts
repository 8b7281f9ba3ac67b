// Fresh PostgreSQL databases for tests. Needs GATEHOUSE_TEST_DATABASE_URL (a role that may create
// databases). Each test file migrates one template database once; each caller then gets a fresh
// copy of it (CREATE DATABASE ... TEMPLATE), dropped when it is done.
import { randomBytes } from 'node:crypto';
import postgres from 'postgres';
import { afterAll } from 'vitest';
import { openPostgresStore } from '../../src/adapters/persistence/postgres/postgres-store.js';

export const adminUrl = process.env['GATEHOUSE_TEST_DATABASE_URL'];

/** The admin URL with its database replaced by `name`. */
export function urlOf(name: string): string {
  const url = new URL(adminUrl ?? '');
  url.pathname = `/${name}`;
  return url.toString();
}

export const uniqueName = (prefix: string) => `${prefix}_${randomBytes(6).toString('hex')}`;

let admin: postgres.Sql | null = null;
let template: Promise<string> | null = null;

function adminSql(): postgres.Sql {
  if (!adminUrl) throw new Error('GATEHOUSE_TEST_DATABASE_URL is not set');
  admin ??= postgres(adminUrl, { max: 1, onnotice: () => {} });
  return admin;
}

/** Creates an empty database (a copy of `from` when given); the name is ours, so it is quoted as is. */
export async function createDatabase(name: string, from?: string): Promise<void> {
  await adminSql().unsafe(from === undefined ? `create database "${name}"` : `create database "${name}" template "${from}"`);
}

/** Drops a database, ending whatever connections are left on it. */
export async function dropDatabase(name: string): Promise<void> {
  await adminSql().unsafe(`drop database if exists "${name}" with (force)`);
}

/** The template every database of this file is copied from: created and migrated once. */
function migratedTemplate(): Promise<string> {
  template ??= (async () => {
    const name = uniqueName(`gh_tpl_${process.pid}`);
    await createDatabase(name);
    // Opening a store migrates; closing it leaves no connection, as copying a template requires.
    const store = await openPostgresStore({ url: urlOf(name) });
    await store.close();
    return name;
  })();
  return template;
}

export async function freshDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = uniqueName('gh_t');
  await createDatabase(name, await migratedTemplate());
  return { url: urlOf(name), drop: () => dropDatabase(name) };
}

afterAll(async () => {
  if (template !== null) await dropDatabase(await template);
  await admin?.end({ timeout: 5 });
  admin = null;
  template = null;
});
