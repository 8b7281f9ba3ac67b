import { useState } from 'preact/hooks';
import { appPath, del, get, patch, post, put, seg } from '../api.js';
import type { AppPageProps } from '../components/app-shell.js';
import { AuditLog } from '../components/audit-log.js';
import { Badge } from '../components/badge.js';
import { DataTable, RowActions, RowButton } from '../components/data-table.js';
import { ErrorBanner } from '../components/error-banner.js';
import { Card, Empty, FormActions, TextField } from '../components/fields.js';
import { Link } from '../components/link.js';
import { MembershipBadge, TimeoutBadge } from '../components/membership.js';
import { runConfirmed, useAction, useLoad } from '../components/use-load.js';
import { downloadText } from '../download.js';
import { formatDateTime, formatMinutes, isoToLocalInput, localInputToIso } from '../format.js';
import { appHref } from '../router.js';
import { BulkAdjust } from '../components/bulk-adjust.js';
import type { Adjustment, Application, Ban, User, UserPageData, UserVariable } from '../types.js';

export function UserPage({ app, userId }: AppPageProps & { userId: string }) {
  const path = appPath(app.id, `/users/${seg(userId)}`);
  const user = useLoad(() => get<UserPageData>(path), [path]);
  const bans = useLoad(() => get<Ban[]>(appPath(app.id, '/bans')), [app.id]);
  const action = useAction();
  const u = user.data;
  const ban = bans.data?.find((b) => b.type === 'user' && b.value === userId) ?? null;

  const act = (title: string, message: string, label: string, request: () => Promise<unknown>) => () =>
    void runConfirmed(action, { title, message, label }, async () => {
      await request();
      await user.reload();
    });

  return (
    <>
      <Link href={appHref(app.id, 'users')} class="back-link">
        ‹ Users
      </Link>
      <ErrorBanner error={user.error ?? bans.error ?? action.error} />
      {u && (
        <>
          <div class="page-head">
            <h1>{u.username}</h1>
            <span>
              <MembershipBadge user={u} /> <TimeoutBadge user={u} /> {ban && <Badge tone="red">Banned</Badge>}
            </span>
          </div>
          <Card title="Account">
            <dl class="facts">
              <dt>Signed up</dt>
              <dd>{formatDateTime(u.created_at)}</dd>
              <dt>Credential</dt>
              <dd>{u.credential_type === 'license_code' ? 'License code' : 'Username and password'}</dd>
              <dt>Last IP address</dt>
              <dd class="mono">{u.last_ip ?? '—'}</dd>
              <dt>User id</dt>
              <dd class="mono">{u.id}</dd>
            </dl>
            <button type="button" class="btn btn-danger" onClick={act('Revoke all sessions?', `${u.username} is signed out everywhere.`, 'Revoke sessions', () => del(`${path}/sessions`))}>
              Revoke all sessions
            </button>{' '}
            <button
              type="button"
              class="btn"
              onClick={act('Unlock sign-in?', `Failed sign-in attempts on ${u.username} are forgotten and every lock is lifted, at every address.`, 'Unlock', () => del(`${path}/lock`))}
            >
              Unlock sign-in
            </button>{' '}
            {ban ? (
              <button
                type="button"
                class="btn"
                onClick={act('Remove the ban?', `${u.username} can sign in again.`, 'Remove ban', async () => {
                  await del(appPath(app.id, `/bans/${seg(ban.id)}`));
                  await bans.reload();
                })}
              >
                Remove ban
              </button>
            ) : (
              <button
                type="button"
                class="btn btn-danger"
                onClick={act('Ban this user?', `${u.username}'s sessions end and every sign-in is refused until the ban is removed (here or on Bans).`, 'Ban', async () => {
                  await post(appPath(app.id, '/bans'), { type: 'user', value: u.id });
                  await bans.reload();
                })}
              >
                Ban
              </button>
            )}
          </Card>
          <BulkAdjust appId={app.id} userIds={[u.id]} single={{ title: 'Extend or reduce membership', name: u.username }} onDone={() => void user.reload()} />
          <PlanCard key={u.direct_entitlements.join(',')} appId={app.id} user={u} path={path} onChange={() => void user.reload()} />
          <TimeoutCard user={u} path={path} onChange={() => void user.reload()} />
          <LimitsCard user={u} path={path} onChange={() => void user.reload()} />
          {u.credential_type === 'username_password' && <PasswordCard user={u} path={path} />}
          <VariablesCard user={u} path={path} onChange={() => void user.reload()} />
          <Card title="Devices">
            <DeviceResets app={app} user={u} />
            {u.registered_devices.length === 0 ? (
              <Empty>No registered devices.</Empty>
            ) : (
              <DataTable headers={['Machine', 'Platform', 'First seen', 'Last seen', 'Last address', '']}>
                {u.registered_devices.map((d) => (
                  <tr key={d.id} data-testid="device-row">
                    <td>
                      <strong>{d.name ?? 'Unnamed'}</strong>
                      <br />
                      <span class="mono muted">{d.hardware_id}</span>
                    </td>
                    <td>{[d.platform, d.app_version].filter((x) => x !== null).join(' · ') || '—'}</td>
                    <td>{formatDateTime(d.first_seen_at)}</td>
                    <td data-testid="device-last-seen">{formatDateTime(d.last_seen_at)}</td>
                    <td class="mono">{d.last_ip ?? '—'}</td>
                    <RowActions onDelete={act('Drop this device?', `${d.name ?? d.hardware_id}: its sessions end now.`, 'Drop', () => del(`${path}/devices/${seg(d.id)}`))} deleteLabel="Drop" />
                  </tr>
                ))}
              </DataTable>
            )}
          </Card>
          <LicenseFileCard user={u} path={path} onIssued={() => void user.reload()} />
          <Card title="Membership history">
            <History adjustments={u.membership.adjustments} />
          </Card>
          <Card title="History">
            <p class="muted">Everything done to this user, newest first (the application's Activity has the rest).</p>
            <AuditLog appId={app.id} filters={{ target_type: 'user', target_id: u.id }} empty="Nothing recorded for this user yet." />
          </Card>
        </>
      )}
    </>
  );
}

function describe(a: Adjustment): string {
  const parts = [];
  if (a.minutes !== null) parts.push(a.minutes > 0 ? `+${formatMinutes(a.minutes)}` : formatMinutes(a.minutes));
  if (a.grants_lifetime_access) parts.push('lifetime granted');
  if (a.revokes_lifetime_access) parts.push('lifetime revoked');
  return parts.join(', ') || '—';
}

function History({ adjustments }: { adjustments: Adjustment[] }) {
  if (adjustments.length === 0) return <Empty>No adjustments yet.</Empty>;
  return (
    <DataTable headers={['When', 'Source', 'Change', 'Reason']}>
      {[...adjustments].reverse().map((a) => (
        <tr key={a.id}>
          <td>{formatDateTime(a.occurred_at)}</td>
          <td>{a.type === 'license' ? <Badge tone="blue">license</Badge> : a.type === 'trial' ? <Badge tone="green">trial</Badge> : <Badge>bulk</Badge>}</td>
          <td>{describe(a)}</td>
          <td>{a.reason}</td>
        </tr>
      ))}
    </DataTable>
  );
}

function TimeoutCard({ user, path, onChange }: { user: User; path: string; onChange: () => void }) {
  const running = user.timed_out_until !== null && Date.parse(user.timed_out_until) > Date.now();
  const [until, setUntil] = useState(isoToLocalInput(new Date(Date.now() + 24 * 3600_000).toISOString()));
  const [reason, setReason] = useState('');
  const action = useAction();
  const set = (e: Event) => {
    e.preventDefault();
    void action.run(async () => {
      await put(`${path}/timeout`, { until: localInputToIso(until), ...(reason.trim() ? { reason: reason.trim() } : {}) });
      setReason('');
      onChange();
    });
  };
  const lift = () =>
    runConfirmed(action, { title: 'Lift the timeout?', message: `${user.username} can sign in again at once.`, label: 'Lift timeout' }, async () => {
      await del(`${path}/timeout`);
      onChange();
    });
  return (
    <Card title="Timeout">
      <ErrorBanner error={action.error} />
      {running ? (
        <div class="timeout-running">
          <p>
            Timed out until <strong>{formatDateTime(user.timed_out_until)}</strong>
            {user.timeout_reason && <> — {user.timeout_reason}</>}
          </p>
          <button type="button" class="btn btn-danger" onClick={() => void lift()}>
            Lift timeout
          </button>
        </div>
      ) : (
        <form onSubmit={set}>
          <p class="muted">A timeout refuses the user's requests until it ends and signs them out now.</p>
          <div class="form-row">
            <TextField label="Until" name="until" type="datetime-local" value={until} onInput={setUntil} required />
            <TextField label="Reason" name="reason" value={reason} onInput={setReason} placeholder="optional, shown to the user" />
          </div>
          <FormActions label="Set timeout" busy={action.busy} />
        </form>
      )}
    </Card>
  );
}

/** A form's submit: runs `work`, then says it is saved until the next submit. */
function useSavingSubmit(work: () => Promise<void>) {
  const [saved, setSaved] = useState(false);
  const action = useAction();
  const submit = (e: Event) => {
    e.preventDefault();
    setSaved(false);
    void action.run(async () => {
      await work();
      setSaved(true);
    });
  };
  return { action, saved, submit };
}

/** The membership's plan and the entitlements in force, and the owner's direct grants (docs/plans.md,
 * "Entitlements"): the codes the user keeps whatever plans they hold. */
function PlanCard({ appId, user, path, onChange }: { appId: string; user: UserPageData; path: string; onChange: () => void }) {
  const m = user.membership;
  const [direct, setDirect] = useState(user.direct_entitlements.join(', '));
  const { action, saved, submit } = useSavingSubmit(async () => {
    await put<User>(`${path}/entitlements`, { entitlements: direct.split(/[\s,]+/).filter(Boolean) });
    onChange();
  });
  return (
    <Card title="Plan and entitlements">
      <dl class="facts">
        <dt>Plan</dt>
        <dd data-testid="plan">{m.plan ? <Link href={appHref(appId, 'plans')}>{m.plan.name}</Link> : 'No plan'}</dd>
        <dt>Entitlements</dt>
        <dd class="mono" data-testid="entitlements">
          {m.entitlements.join(', ') || '—'}
        </dd>
        {m.in_grace && (
          <>
            <dt>Grace</dt>
            <dd>access until {formatDateTime(m.grace_ends_at)}</dd>
          </>
        )}
      </dl>
      <form onSubmit={submit}>
        <ErrorBanner error={action.error} />
        {saved && (
          <div class="banner banner-success" role="status">
            Entitlements saved.
          </div>
        )}
        <TextField label="Granted directly" name="direct_entitlements" value={direct} onInput={setDirect} hint="Codes separated by commas, kept whatever plan the user holds." />
        <FormActions label="Save entitlements" busy={action.busy} />
      </form>
    </Card>
  );
}

function LimitsCard({ user, path, onChange }: { user: User; path: string; onChange: () => void }) {
  const [devices, setDevices] = useState(String(user.allowed_number_of_devices));
  const [sessions, setSessions] = useState(String(user.allowed_number_of_simultaneous_sessions));
  const { action, saved, submit } = useSavingSubmit(async () => {
    await patch<User>(path, { allowed_number_of_devices: Number(devices), allowed_number_of_simultaneous_sessions: Number(sessions) });
    onChange();
  });
  return (
    <Card title="Limits">
      <form onSubmit={submit}>
        <ErrorBanner error={action.error} />
        {saved && (
          <div class="banner banner-success" role="status">
            Limits saved.
          </div>
        )}
        <div class="form-row">
          <TextField label="Allowed devices" name="allowed_devices" type="number" min={0} max={10000} value={devices} onInput={setDevices} required />
          <TextField label="Allowed simultaneous sessions" name="allowed_sessions" type="number" min={1} max={10000} value={sessions} onInput={setSessions} required />
        </div>
        <FormActions label="Save limits" busy={action.busy} />
      </form>
    </Card>
  );
}

/** An offline license file for an air-gapped machine (docs/api.md, "Offline license files"), issued by
 * the console API, which registers the machine against the user's device limit, and saved as
 * `<username>.lic` for the owner to carry over. */
function LicenseFileCard({ user, path, onIssued }: { user: User; path: string; onIssued: () => void }) {
  const [hardwareId, setHardwareId] = useState('');
  const [ttl, setTtl] = useState('');
  const [issued, setIssued] = useState<string | null>(null);
  const action = useAction();
  const submit = (e: Event) => {
    e.preventDefault();
    setIssued(null);
    void action.run(async () => {
      const body = { hardware_id: hardwareId.trim(), ...(ttl.trim() === '' ? {} : { ttl_minutes: Number(ttl) }) };
      const file = await post<{ license_file: string; expires_at: string }>(`${path}/license_files`, body);
      downloadText(`${user.username}.lic`, file.license_file, 'application/octet-stream');
      setIssued(file.expires_at);
      onIssued();
    });
  };
  return (
    <Card title="Offline license file">
      <form onSubmit={submit}>
        <ErrorBanner error={action.error} />
        {issued && (
          <div class="banner banner-success" role="status">
            License file downloaded; it expires {formatDateTime(issued)}.
          </div>
        )}
        <p class="muted">For a machine that cannot reach the server: it counts against the device limit, and expires with the membership at the latest.</p>
        <div class="form-row">
          <TextField label="Hardware id" name="license_file_hardware_id" value={hardwareId} onInput={setHardwareId} required />
          <TextField label="Lasts (minutes)" name="license_file_ttl_minutes" type="number" min={60} max={525600} value={ttl} onInput={setTtl} placeholder="the application's setting" />
        </div>
        <FormActions label="Download license file" busy={action.busy} />
      </form>
    </Card>
  );
}

/** The user's own device resets (docs/api.md, POST /reset_devices): the application's setting, the last one and the next allowed. */
function DeviceResets({ app, user }: { app: Application; user: UserPageData }) {
  const cooldown = app.device_reset_cooldown_hours;
  return (
    <dl class="facts" data-testid="device-resets">
      <dt>Reset by the user</dt>
      <dd>{cooldown === null ? 'off for this application' : `at most once every ${cooldown} hours`}</dd>
      <dt>Last reset</dt>
      <dd>{user.last_device_reset_at === null ? 'never' : formatDateTime(user.last_device_reset_at)}</dd>
      {cooldown !== null && (
        <>
          <dt>Next reset allowed</dt>
          <dd>{user.next_device_reset_at === null ? 'now' : formatDateTime(user.next_device_reset_at)}</dd>
        </>
      )}
    </dl>
  );
}

/** The owner sets a new password; every session of the user ends (docs/api.md, POST /change_password). */
function PasswordCard({ user, path }: { user: User; path: string }) {
  const [password, setPassword] = useState('');
  const { action, saved, submit } = useSavingSubmit(async () => {
    await put(`${path}/password`, { password });
    setPassword('');
  });
  return (
    <Card title="Password">
      <form onSubmit={submit}>
        <ErrorBanner error={action.error} />
        {saved && (
          <div class="banner banner-success" role="status">
            Password set. {user.username} is signed out everywhere.
          </div>
        )}
        <p class="muted">Sets a new password for the user (no old one needed) and signs them out everywhere.</p>
        <div class="form-row">
          <TextField label="New password" name="new_password" type="password" value={password} onInput={setPassword} autoComplete="new-password" required />
        </div>
        <FormActions label="Set password" busy={action.busy} />
      </form>
    </Card>
  );
}

/** The user's variables (docs/api.md, User variables): what the client app keeps for them. */
function VariablesCard({ user, path, onChange }: { user: UserPageData; path: string; onChange: () => void }) {
  const [editing, setEditing] = useState<UserVariable | null>(null);
  const remove = useAction();
  const drop = (v: UserVariable) =>
    runConfirmed(remove, { title: `Delete ${v.name}?`, message: `The variable is gone for ${user.username}.`, label: 'Delete' }, async () => {
      await del(`${path}/variables/${seg(v.name)}`);
      onChange();
    });
  return (
    <Card title="Variables">
      <ErrorBanner error={remove.error} />
      {user.variables.length === 0 ? (
        <Empty>No variables.</Empty>
      ) : (
        <DataTable headers={['Name', 'Value', 'Updated', '']}>
          {user.variables.map((v) => (
            <tr key={v.name}>
              <td class="mono">{v.name}</td>
              <td class="mono cell-value">{v.value}</td>
              <td>{formatDateTime(v.updated_at)}</td>
              <RowActions onDelete={() => void drop(v)}>
                <RowButton label="Edit" onClick={() => setEditing(v)} />
              </RowActions>
            </tr>
          ))}
        </DataTable>
      )}
      <UserVariableForm key={editing?.name ?? 'new'} path={path} editing={editing} onSaved={() => (setEditing(null), onChange())} onCancel={() => setEditing(null)} />
    </Card>
  );
}

function UserVariableForm({ path, editing, onSaved, onCancel }: { path: string; editing: UserVariable | null; onSaved: () => void; onCancel: () => void }) {
  const [name, setName] = useState(editing?.name ?? '');
  const [value, setValue] = useState(editing?.value ?? '');
  const action = useAction();
  const submit = (e: Event) => {
    e.preventDefault();
    void action.run(async () => {
      await put(`${path}/variables/${seg(name.trim())}`, { value });
      onSaved();
    });
  };
  return (
    <form onSubmit={submit} class="user-variable-form">
      <h3>{editing ? `Edit ${editing.name}` : 'Add a variable'}</h3>
      <ErrorBanner error={action.error} />
      <div class="form-row">
        {!editing && <TextField label="Name" name="variable_name" value={name} onInput={setName} required hint="1 to 64 letters, digits, _ . -" />}
        <label class="field field-wide">
          <span>Value</span>
          <textarea name="variable_value" rows={2} value={value} onInput={(e) => setValue(e.currentTarget.value)} />
        </label>
      </div>
      <FormActions label={editing ? 'Save' : 'Add variable'} busy={action.busy} onCancel={editing ? onCancel : undefined} />
    </form>
  );
}
