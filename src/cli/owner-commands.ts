// `gatehouse owner create|login|list|reset-password|unlock`: owner accounts, worked on the data itself
// (see local-data.ts), so they need no console token: local access to the data is the authority.
import { parseArgs } from 'node:util';
import { validateEmail } from '../domain/credentials-policy.js';
import { createOwner, issueConsoleToken, resetOwnerPassword, unlockOwner, verifyOwnerSignIn } from '../application/console/owners.js';
import { CliError, EXIT, UsageError } from './cli-errors.js';
import { openLocalData, type LocalData } from './local-data.js';
import type { Actor } from '../application/events/actor.js';
import { passwordOptions, readPassword } from './password-input.js';

/** The address the console throttle counts CLI sign-ins under. */
const CLI_CALLER = { ip: 'cli' };

/** The CLI's actor (docs/events.md, Actors): local access to the data is the owner's authority. */
const CLI_OWNER: Actor = { type: 'owner', id: null, ip: null };

/** Runs `work` on the local data, closing it after. */
async function withData<T>(init: boolean, work: (data: LocalData) => Promise<T>): Promise<T> {
  const data = await openLocalData({ init });
  try {
    return await work(data);
  } finally {
    await data.close();
  }
}

const print = (value: unknown) => process.stdout.write(`${JSON.stringify(value)}\n`);

function emailOf(values: { email?: string | undefined }, command: string): string {
  if (!values.email) throw new UsageError(`owner ${command} needs --email`);
  return values.email;
}

async function create(args: string[]): Promise<number> {
  const { values } = parseArgs({ args, options: { email: { type: 'string' }, init: { type: 'boolean' }, ...passwordOptions }, strict: true });
  const email = emailOf(values, 'create');
  return withData(values.init ?? false, async ({ deps }) => {
    print(await createOwner(deps, email, await readPassword(values, true)));
    return EXIT.OK;
  });
}

/** A new console token for an owner who lost theirs: the password is checked (and throttled) as at the console. */
async function login(args: string[]): Promise<number> {
  const { values } = parseArgs({ args, options: { email: { type: 'string' }, ...passwordOptions }, strict: true });
  const email = emailOf(values, 'login');
  return withData(false, async ({ deps }) => {
    const password = await readPassword(values, false);
    print(await issueConsoleToken(deps, await verifyOwnerSignIn(deps, email, password, CLI_CALLER, CLI_OWNER)));
    return EXIT.OK;
  });
}

async function list(args: string[]): Promise<number> {
  const { values } = parseArgs({ args, options: { json: { type: 'boolean' } }, strict: true });
  return withData(false, async ({ deps }) => {
    const owners = (await deps.store.listOwners()).map((o) => ({ id: o.id, email: o.email, created_at: new Date(o.createdAt).toISOString() }));
    if (values.json) print(owners);
    else for (const o of owners) process.stdout.write(`${o.email}\t${o.id}\tcreated ${o.created_at}\n`);
    if (!values.json && owners.length === 0) process.stderr.write('no owners yet: create one with gatehouse owner create\n');
    return EXIT.OK;
  });
}

/** Sets a new password without the old one, revokes the owner's console tokens and browser sessions,
 * and lifts a sign-in lock on the account (docs/cli.md, "CI command line"). */
async function resetPassword(args: string[]): Promise<number> {
  const { values } = parseArgs({ args, options: { email: { type: 'string' }, ...passwordOptions }, strict: true });
  const email = validateEmail(emailOf(values, 'reset-password'));
  return withData(false, async ({ deps }) => {
    const owner = await deps.store.findOwnerByEmail(email);
    if (owner === null) throw new CliError(EXIT.NOT_FOUND, `no owner with the email ${email} (see gatehouse owner list)`);
    const revoked = await resetOwnerPassword(deps, owner, await readPassword(values, true));
    print({ owner: { id: owner.id, email: owner.email }, revoked_tokens: revoked });
    return EXIT.OK;
  });
}

/** Lifts the sign-in locks on an owner's account, at every address, keeping the password. */
async function unlock(args: string[]): Promise<number> {
  const { values } = parseArgs({ args, options: { email: { type: 'string' } }, strict: true });
  const email = validateEmail(emailOf(values, 'unlock'));
  return withData(false, async ({ deps }) => {
    const owner = await deps.store.findOwnerByEmail(email);
    if (owner === null) throw new CliError(EXIT.NOT_FOUND, `no owner with the email ${email} (see gatehouse owner list)`);
    await unlockOwner(deps, owner);
    print({ owner: { id: owner.id, email: owner.email }, unlocked: true });
    return EXIT.OK;
  });
}

export const ownerCommands: Record<string, (args: string[]) => Promise<number>> = {
  create,
  login,
  list,
  'reset-password': resetPassword,
  unlock,
};
