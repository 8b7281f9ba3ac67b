// The application a request's API key names (applications_api_key_unique). Where rows carry
// versions (PostgreSQL) the requests of a turn share one statement and an answer is remembered by
// the row's version, as the session read is (access-reads.ts; docs/choices.md, "Remembered access").
import { eq, getTableColumns } from 'drizzle-orm';
import type { PgColumn } from 'drizzle-orm/pg-core';
import type { ApplicationRecord } from '../../../application/records.js';
import type { RequestRows } from './compiled.js';
import type { FastReads } from './fast-reads.js';
import { readRememberedByVersion } from './remembered-by-version.js';
import { toApplication } from '../row-mappers.js';

type ApplicationRow = Parameters<typeof toApplication>[0];

/** The shared, remembered read where rows carry versions; null where they do not (SQLite). */
export function applicationReads({ db, t, prepareForRequests, rowVersions }: FastReads): ((apiKey: string) => Promise<ApplicationRecord | null>) | null {
  if (!rowVersions) return null;
  const { applications } = t;
  const keys = ['apiKey'];
  const versioned = { 'a.version': applications };
  const over = (requests: RequestRows, fields: Record<string, PgColumn>) =>
    db
      .select({ ...requests.tag, ...requests.versions, ...fields })
      .from(requests.source)
      .innerJoin(applications, eq(applications.apiKey, requests.key('apiKey')));
  const fields = getTableColumns(applications);
  const whole = prepareForRequests<Record<string, unknown>>(fields, keys, (r) => over(r, fields), versioned);
  const versionFields = { id: applications.id };
  const versions = prepareForRequests<Record<string, unknown>>(versionFields, keys, (r) => over(r, versionFields), versioned);
  const read = readRememberedByVersion({
    whole,
    versions,
    versionsOf: (row) => String(row['a.version']),
    partsOf: ([row]) => Object.freeze({ ...row }) as ApplicationRow,
    answerOf: toApplication,
    none: () => null,
  });
  return (apiKey) => read({ apiKey }, apiKey);
}
