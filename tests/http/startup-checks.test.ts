import { randomBytes } from 'node:crypto';
import { afterEach, expect, it } from 'vitest';
import { createSecrets } from '../../src/adapters/crypto/secrets.js';
import { assertMasterKeyMatches } from '../../src/startup-checks.js';
import { createApplication, startTestApp, type TestApp } from '../support/test-app.js';

let t: TestApp;
afterEach(() => t.close());

it('a start with another master key than the database was set up with is refused', async () => {
  t = await startTestApp();
  await expect(assertMasterKeyMatches(t.deps)).resolves.toBeUndefined();
  await createApplication(t);
  await expect(assertMasterKeyMatches(t.deps)).resolves.toBeUndefined();
  const wrong = { ...t.deps, secrets: createSecrets(randomBytes(32)) };
  await expect(assertMasterKeyMatches(wrong)).rejects.toThrow(/GATEHOUSE_MASTER_KEY: this is not the master key/);
});
