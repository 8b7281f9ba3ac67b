import { useState } from 'preact/hooks';
import { appPath, del, get, put, seg } from '../api.js';
import type { AppPageProps } from '../components/app-shell.js';
import { Badge } from '../components/badge.js';
import { confirmAction } from '../components/confirm.js';
import { ErrorBanner } from '../components/error-banner.js';
import { Card, CheckField, Empty, TextField } from '../components/fields.js';
import { Pager, usePage } from '../components/pager.js';
import { useAction, useLoad } from '../components/use-load.js';
import type { Variable } from '../types.js';

export function VariablesPage({ app }: AppPageProps) {
  const vars = useLoad(() => get<Variable[]>(appPath(app.id, '/variables')), [app.id]);
  const { rows, page, pages, setPage } = usePage(vars.data ?? []);
  const [editing, setEditing] = useState<Variable | null>(null);
  const remove = useAction();

  const drop = async (v: Variable) => {
    if (!(await confirmAction(`Delete ${v.name}?`, 'Clients will no longer receive this variable.'))) return;
    void remove.run(async () => {
      await del(appPath(app.id, `/variables/${seg(v.name)}`));
      await vars.reload();
    });
  };

  return (
    <>
      <h1>Variables</h1>
      <VariableForm
        key={editing?.name ?? 'new'}
        appId={app.id}
        editing={editing}
        onSaved={() => (setEditing(null), void vars.reload())}
        onCancel={() => setEditing(null)}
      />
      <Card title="Variables">
        <ErrorBanner error={vars.error ?? remove.error} />
        {vars.data && vars.data.length === 0 && <Empty>No variables.</Empty>}
        {rows.length > 0 && (
          <div class="table-wrap">
            <table>
              <thead>
                <tr>
                  <th>Name</th>
                  <th>Value</th>
                  <th>Visibility</th>
                  <th />
                </tr>
              </thead>
              <tbody>
                {rows.map((v) => (
                  <tr key={v.name}>
                    <td class="mono">{v.name}</td>
                    <td class="mono cell-value">{v.value}</td>
                    <td>{v.is_public ? <Badge tone="blue">public</Badge> : <Badge>private</Badge>}</td>
                    <td class="row-actions">
                      <button type="button" class="btn btn-small" onClick={() => setEditing(v)}>
                        Edit
                      </button>
                      <button type="button" class="btn btn-small btn-danger" onClick={() => void drop(v)}>
                        Delete
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

function VariableForm({ appId, editing, onSaved, onCancel }: { appId: string; editing: Variable | null; onSaved: () => void; onCancel: () => void }) {
  const [name, setName] = useState(editing?.name ?? '');
  const [value, setValue] = useState(editing?.value ?? '');
  const [isPublic, setPublic] = useState(editing?.is_public ?? false);
  const action = useAction();
  const submit = (e: Event) => {
    e.preventDefault();
    void action.run(async () => {
      await put(appPath(appId, `/variables/${seg(name.trim())}`), { value, is_public: isPublic });
      onSaved();
    });
  };
  return (
    <Card title={editing ? `Edit ${editing.name}` : 'Add a variable'}>
      <form onSubmit={submit}>
        <ErrorBanner error={action.error} />
        <div class="form-row">
          {!editing && <TextField label="Name" name="name" value={name} onInput={setName} required hint="Letters, digits, _ . -" />}
          <label class="field field-wide">
            <span>Value</span>
            <textarea name="value" rows={2} value={value} onInput={(e) => setValue(e.currentTarget.value)} />
          </label>
        </div>
        <CheckField label="Public" name="is_public" checked={isPublic} onChange={setPublic} hint="Public variables reach anonymous clients too." />
        <div class="actions">
          {editing && (
            <button type="button" class="btn" onClick={onCancel}>
              Cancel
            </button>
          )}
          <button type="submit" class="btn btn-primary" disabled={action.busy}>
            {editing ? 'Save' : 'Add variable'}
          </button>
        </div>
      </form>
    </Card>
  );
}
