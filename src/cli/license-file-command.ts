// gatehouse license-file verify <file> --public-key K --hardware-id H: support staff's check of an
// offline license file (docs/cli.md, CI command line; docs/signing.md, Offline license files), offline,
// with the same module the SDK verifies with. Prints the claims, or the reason the file is refused.
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { pinnedEd25519Keys } from '../signing/ed25519.js';
import { type LicenseFileClaims, LicenseFileError, verifyLicenseFile } from '../signing/license-file.js';
import { result } from './ci-options.js';
import { CliError, EXIT, UsageError } from './cli-errors.js';

const options = {
  'public-key': { type: 'string', multiple: true },
  'hardware-id': { type: 'string' },
  'application-id': { type: 'string' },
  json: { type: 'boolean' },
} as const;

const iso = (seconds: number) => new Date(seconds * 1000).toISOString();

function describe(c: LicenseFileClaims): string {
  const membership = c.membership.is_lifetime ? 'lifetime' : `until ${c.membership.active_until === null ? 'none' : iso(c.membership.active_until)}`;
  return [
    `valid license file for ${c.username} (user ${c.sub}) of application ${c.app}`,
    `machine: ${c.hwid_sha256 === null ? 'any (no device authentication)' : `hwid_sha256 ${c.hwid_sha256}`}`,
    `membership: ${membership}`,
    `issued ${iso(c.iat)}, expires ${iso(c.exp)} (jti ${c.jti})`,
  ].join('\n');
}

async function verify(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options });
  if (positionals.length !== 1 || positionals[0] === '') throw new UsageError('license-file verify needs one <file>');
  const publicKeys = values['public-key'] ?? [];
  if (publicKeys.length === 0) throw new UsageError("license-file verify needs --public-key (the application's response_signing_public_key)");
  let keys: ReturnType<typeof pinnedEd25519Keys>;
  try {
    keys = pinnedEd25519Keys(publicKeys, '--public-key');
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const text = await readFile(positionals[0] as string, 'utf8').catch((error: NodeJS.ErrnoException) => {
    throw new CliError(EXIT.FAILURE, `cannot read ${positionals[0]}: ${error.code ?? error.message}`);
  });
  try {
    const claims = verifyLicenseFile(text, {
      keys,
      applicationId: values['application-id'] ?? null,
      hardwareId: values['hardware-id'] ?? null,
      now: Math.floor(Date.now() / 1000),
    });
    result(values, { valid: true, claims }, describe(claims));
    return EXIT.OK;
  } catch (error) {
    if (!(error instanceof LicenseFileError)) throw error;
    if (values.json) result(values, { valid: false, failure: error.code, reason: error.message }, '');
    throw new CliError(EXIT.FAILURE, `license file refused (${error.code}): ${error.message}`);
  }
}

export const licenseFileCommands: Record<string, (args: string[]) => Promise<number>> = { verify };
