import { useState } from 'preact/hooks';
import { appPath, del, get, put, seg } from '../api.js';
import type { AppPageProps } from '../components/app-shell.js';
import { Badge } from '../components/badge.js';
import { PagedTable, RowActions, RowButton } from '../components/data-table.js';
import { ErrorBanner } from '../components/error-banner.js';
import { Card, CheckField, FormActions, TextField } from '../components/fields.js';
import { runConfirmed, useAction, useLoad } from '../components/use-load.js';
import type { Variable } from '../types.js';

export function VariablesPage({ app }: AppPageProps) {
  const vars = useLoad(() => get<Variable[]>(appPath(app.id, '/variables')), [app.id]);
  const [editing, setEditing] = useState<Variable | null>(null);
  const remove = useAction();

  const drop = (v: Variable) =>
    runConfirmed(remove, { title: `Delete ${v.name}?`, message: 'Clients will no longer receive this variable.' }, async () => {
      await del(appPath(app.id, `/variables/${seg(v.name)}`));
      await vars.reload();
    });

  return (
    <>
      <h1>Variables</h1>
      <VariableForm key={editing?.name ?? 'new'} appId={app.id} editing={editing} onSaved={() => (setEditing(null), void vars.reload())} onCancel={() => setEditing(null)} />
      <Card title="Variables">
        <ErrorBanner error={vars.error ?? remove.error} />
        <PagedTable
          items={vars.data}
          empty="No variables."
          headers={['Name', 'Value', 'Visibility', '']}
          row={(v) => (
            <tr key={v.name}>
              <td class="mono">{v.name}</td>
              <td class="mono cell-value">{v.value}</td>
              <td>{v.is_public ? <Badge tone="blue">public</Badge> : <Badge>private</Badge>}</td>
              <RowActions onDelete={() => void drop(v)}>
                <RowButton label="Edit" onClick={() => setEditing(v)} />
              </RowActions>
            </tr>
          )}
        />
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
        <FormActions label={editing ? 'Save' : 'Add variable'} busy={action.busy} onCancel={editing ? onCancel : undefined} />
      </form>
    </Card>
  );
}
