// What the start banner says about where the data is (issue 39, item 9): the data folder for the
// embedded setup; on PostgreSQL and S3 the database (never its password) and the bucket, not a
// data folder nothing is kept in. The banner itself, on SQLite, is in owner-commands.test.ts.
import { expect, it } from 'vitest';
import { readConfig } from '../../src/config.js';
import { describeStorage } from '../../src/open-store.js';

const key = Buffer.alloc(32, 1).toString('base64');

it('names the data folder on SQLite, and the database and bucket on PostgreSQL and S3', () => {
  expect(describeStorage(readConfig({ GATEHOUSE_DATA_DIR: '/srv/gatehouse' }))).toBe('data in /srv/gatehouse');
  const cloud = readConfig({
    GATEHOUSE_DATA_DIR: '/srv/gatehouse',
    DATABASE_URL: 'postgres://gatehouse:secret@127.0.0.1:5433/gatehouse',
    GATEHOUSE_MASTER_KEY: key,
    GATEHOUSE_BLOB_STORE: 's3',
    S3_BUCKET: 'gatehouse-files',
    S3_ENDPOINT: 'http://127.0.0.1:4569',
  });
  expect(describeStorage(cloud)).toBe('database postgres://gatehouse:***@127.0.0.1:5433/gatehouse, files in S3 bucket gatehouse-files at http://127.0.0.1:4569');
  expect(describeStorage(readConfig({ GATEHOUSE_DATA_DIR: '/srv/g', DATABASE_URL: 'postgres://g@db/g' }))).toBe('database postgres://g@db/g, files in /srv/g/blobs');
  expect(describeStorage(readConfig({ GATEHOUSE_DATA_DIR: '/srv/g', GATEHOUSE_BLOB_STORE: 's3', S3_BUCKET: 'b' }))).toBe('data in /srv/g, files in S3 bucket b');
});
