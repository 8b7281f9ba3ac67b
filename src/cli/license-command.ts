// gatehouse license <code>: a pipeline's look-up of a license code (GET /api/admin/license/...).
import { parseArgs } from 'node:util';
import { commonOptions, connect, result } from './ci-options.js';
import { EXIT, UsageError } from './cli-errors.js';

interface AdminLicense {
  id: string;
  code: string;
  minutes: number | null;
  note: string | null;
  used_at: string | null;
  used_by_user_id: string | null;
  banned: boolean;
  plan_id: string | null;
  seats: number;
  redemptions: number;
  is_credentials_license: boolean;
}

const grants = (l: AdminLicense) => (l.plan_id !== null ? `plan ${l.plan_id}` : l.minutes === null ? 'lifetime' : `${l.minutes} minutes`);

function licenseLines(l: AdminLicense): string[] {
  return [
    `${l.code} (id ${l.id})`,
    `grants: ${grants(l)}`,
    ...(l.plan_id !== null ? [`seats: ${l.redemptions} of ${l.seats} taken`] : []),
    l.used_at === null ? 'unused' : `used at ${l.used_at} by user ${l.used_by_user_id ?? '(deleted)'}${l.is_credentials_license ? ' (the login of a license-code user)' : ''}`,
    ...(l.banned ? ['banned'] : []),
    ...(l.note ? [`note: ${l.note}`] : []),
  ];
}

export async function licenseCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: commonOptions });
  if (positionals.length !== 1 || positionals[0] === '') throw new UsageError('license needs one <license code>');
  const license = (await connect(values).license(positionals[0] as string)) as unknown as AdminLicense;
  result(values, license, licenseLines(license).join('\n'));
  return EXIT.OK;
}
