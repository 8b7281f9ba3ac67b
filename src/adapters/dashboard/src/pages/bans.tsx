import { useState } from 'preact/hooks';
import { appPath, del, get, post, seg } from '../api.js';
import type { AppPageProps } from '../components/app-shell.js';
import { Badge } from '../components/badge.js';
import { PagedTable, RowActions, RowButton } from '../components/data-table.js';
import { ErrorBanner } from '../components/error-banner.js';
import { Card, FormActions, SelectField, TextField } from '../components/fields.js';
import { runConfirmed, useAction, useLoad } from '../components/use-load.js';
import { UserPicker } from '../components/user-picker.js';
import { formatDateTime } from '../format.js';
import type { Ban, BanType } from '../types.js';

const TYPES: Array<[BanType, string]> = [
  ['ip', 'IP address'],
  ['hardware_id', 'Hardware id'],
  ['license', 'License code'],
  ['user', 'User'],
];
const typeName = (t: BanType) => TYPES.find(([v]) => v === t)?.[1] ?? t;

export function BansPage({ app }: AppPageProps) {
  const bans = useLoad(() => get<Ban[]>(appPath(app.id, '/bans')), [app.id]);
  const [type, setType] = useState<BanType>('ip');
  const [value, setValue] = useState('');
  const [reason, setReason] = useState('');
  const add = useAction();
  const remove = useAction();

  const submit = (e: Event) => {
    e.preventDefault();
    void add.run(async () => {
      await post(appPath(app.id, '/bans'), { type, value: value.trim(), ...(reason.trim() ? { reason: reason.trim() } : {}) });
      // The picker keeps its choice (its matches have not changed); a typed value is cleared.
      if (type !== 'user') setValue('');
      setReason('');
      await bans.reload();
    });
  };
  const lift = (ban: Ban, cascade: boolean) =>
    runConfirmed(
      remove,
      cascade
        ? { title: 'Remove this ban and what it propagated?', message: `${typeName(ban.type)} ${ban.value} and every ban propagated from it are no longer banned.`, label: 'Remove all' }
        : { title: 'Remove this ban?', message: `${typeName(ban.type)} ${ban.value} is no longer banned.`, label: 'Remove ban' },
      async () => {
        await del(appPath(app.id, `/bans/${seg(ban.id)}${cascade ? '?cascade=true' : ''}`));
        await bans.reload();
      },
    );
  const origin = (id: string) => bans.data?.find((b) => b.id === id);

  return (
    <>
      <h1>Bans</h1>
      <Card title="Add a ban">
        <form onSubmit={submit}>
          <ErrorBanner error={add.error} />
          <div class="form-row">
            <SelectField<BanType>
              label="Type"
              name="type"
              value={type}
              onChange={(t) => {
                setType(t);
                setValue('');
              }}
              options={TYPES}
            />
            {type === 'user' ? (
              // The API takes the user's id; the owner picks them by name.
              <UserPicker appId={app.id} value={value} onChange={setValue} />
            ) : (
              <TextField label="Value" name="value" value={value} onInput={setValue} required />
            )}
            <TextField label="Reason" name="reason" value={reason} onInput={setReason} placeholder="optional" />
          </div>
          <FormActions label="Ban" busy={add.busy} />
        </form>
      </Card>
      <Card title="Bans">
        <ErrorBanner error={bans.error ?? remove.error} />
        <PagedTable
          items={bans.data}
          empty="No bans."
          headers={['Type', 'Value', 'Reason', 'Since', 'Until', '']}
          row={(b) => (
            <tr key={b.id}>
              <td>
                <Badge tone="red">{typeName(b.type)}</Badge>
              </td>
              <td class="mono">{b.value}</td>
              <td>
                {b.reason}
                {b.propagated_from !== null && (
                  <div class="muted small">propagated from {origin(b.propagated_from) ? `${typeName(origin(b.propagated_from)!.type)} ${origin(b.propagated_from)!.value}` : 'a removed ban'}</div>
                )}
              </td>
              <td>{formatDateTime(b.created_at)}</td>
              <td>{b.expires_at === null ? '' : formatDateTime(b.expires_at)}</td>
              <RowActions onDelete={() => void lift(b, false)} deleteLabel="Remove">
                {b.propagated_from === null && bans.data?.some((x) => x.propagated_from === b.id) && <RowButton label="Remove with propagated" onClick={() => void lift(b, true)} />}
              </RowActions>
            </tr>
          )}
        />
      </Card>
    </>
  );
}
