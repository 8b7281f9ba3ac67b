// gatehouse user <username|code>: a pipeline's look-up of an end user (GET /api/admin/user/...).
import { parseArgs } from 'node:util';
import { commonOptions, connect, result } from './ci-options.js';
import { EXIT, UsageError } from './cli-errors.js';

interface AdminUser {
  id: string;
  username: string;
  credential_type: string;
  allowed_number_of_devices: number;
  allowed_number_of_simultaneous_sessions: number;
  registered_devices: unknown[];
  membership: { is_active: boolean; is_lifetime: boolean; active_until: string | null };
  timed_out_until?: string | null;
}

function membershipLine(m: AdminUser['membership']): string {
  if (m.is_lifetime) return 'lifetime';
  if (m.active_until === null) return 'none granted';
  return `${m.is_active ? 'active' : 'expired'}, until ${m.active_until}`;
}

export async function userCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: commonOptions });
  if (positionals.length !== 1 || positionals[0] === '') throw new UsageError('user needs one <username|license code>');
  const user = (await connect(values).user(positionals[0] as string)) as unknown as AdminUser;
  const lines = [
    `${user.username} (id ${user.id}, ${user.credential_type})`,
    `membership: ${membershipLine(user.membership)}`,
    `devices: ${user.registered_devices.length} of ${user.allowed_number_of_devices} registered; sessions allowed: ${user.allowed_number_of_simultaneous_sessions}`,
    ...(user.timed_out_until ? [`timed out until ${user.timed_out_until}`] : []),
  ];
  result(values, user, lines.join('\n'));
  return EXIT.OK;
}
