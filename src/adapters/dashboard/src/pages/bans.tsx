import { useState } from 'preact/hooks';
import { appPath, del, get, post, seg } from '../api.js';
import type { AppPageProps } from '../components/app-shell.js';
import { Badge } from '../components/badge.js';
import { confirmAction } from '../components/confirm.js';
import { ErrorBanner } from '../components/error-banner.js';
import { Card, Empty, SelectField, TextField } from '../components/fields.js';
import { Pager, usePage } from '../components/pager.js';
import { useAction, useLoad } from '../components/use-load.js';
import { formatDateTime } from '../format.js';
import type { Ban, BanType } from '../types.js';

const TYPES: Array<[BanType, string]> = [
  ['ip', 'IP address'],
  ['hardware_id', 'Hardware id'],
  ['license', 'License code'],
  ['user', 'User id'],
];
const typeName = (t: BanType) => TYPES.find(([v]) => v === t)?.[1] ?? t;

export function BansPage({ app }: AppPageProps) {
  const bans = useLoad(() => get<Ban[]>(appPath(app.id, '/bans')), [app.id]);
  const { rows, page, pages, setPage } = usePage(bans.data ?? []);
  const [type, setType] = useState<BanType>('ip');
  const [value, setValue] = useState('');
  const [reason, setReason] = useState('');
  const add = useAction();
  const remove = useAction();

  const submit = (e: Event) => {
    e.preventDefault();
    void add.run(async () => {
      await post(appPath(app.id, '/bans'), { type, value: value.trim(), ...(reason.trim() ? { reason: reason.trim() } : {}) });
      setValue('');
      setReason('');
      await bans.reload();
    });
  };
  const lift = async (ban: Ban) => {
    if (!(await confirmAction('Remove this ban?', `${typeName(ban.type)} ${ban.value} is no longer banned.`, 'Remove ban'))) return;
    void remove.run(async () => {
      await del(appPath(app.id, `/bans/${seg(ban.id)}`));
      await bans.reload();
    });
  };

  return (
    <>
      <h1>Bans</h1>
      <Card title="Add a ban">
        <form onSubmit={submit}>
          <ErrorBanner error={add.error} />
          <div class="form-row">
            <SelectField<BanType> label="Type" name="type" value={type} onChange={setType} options={TYPES} />
            <TextField label="Value" name="value" value={value} onInput={setValue} required />
            <TextField label="Reason" name="reason" value={reason} onInput={setReason} placeholder="optional" />
          </div>
          <div class="actions">
            <button type="submit" class="btn btn-primary" disabled={add.busy}>
              Ban
            </button>
          </div>
        </form>
      </Card>
      <Card title="Bans">
        <ErrorBanner error={bans.error ?? remove.error} />
        {bans.data && bans.data.length === 0 && <Empty>No bans.</Empty>}
        {rows.length > 0 && (
          <div class="table-wrap">
            <table>
              <thead>
                <tr>
                  <th>Type</th>
                  <th>Value</th>
                  <th>Reason</th>
                  <th>Since</th>
                  <th />
                </tr>
              </thead>
              <tbody>
                {rows.map((b) => (
                  <tr key={b.id}>
                    <td>
                      <Badge tone="red">{typeName(b.type)}</Badge>
                    </td>
                    <td class="mono">{b.value}</td>
                    <td>{b.reason}</td>
                    <td>{formatDateTime(b.created_at)}</td>
                    <td class="row-actions">
                      <button type="button" class="btn btn-small btn-danger" onClick={() => void lift(b)}>
                        Remove
                      </button>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
        <Pager page={page} pages={pages} onPage={setPage} />
      </Card>
    </>
  );
}
