import { useState } from 'preact/hooks';
import { appPath, del, patch, post } from '../api.js';
import { SecretsOnce } from '../components/copy-button.js';
import type { AppPageProps } from '../components/app-shell.js';
import { ErrorBanner } from '../components/error-banner.js';
import { ResponseSigningCard } from '../components/response-signing-card.js';
import { Card, FormActions } from '../components/fields.js';
import { fromDraft, SettingsFields, toDraft } from '../components/settings-form.js';
import { TrialPlanField } from '../components/trial-plan-field.js';
import { runConfirmed, useAction } from '../components/use-load.js';
import { BASE, navigate } from '../router.js';
import type { Application } from '../types.js';

type Kind = 'api_secret' | 'admin_api_key' | 'request_signing_key';
const KIND_NAMES: Record<Kind, string> = { api_secret: 'API secret', admin_api_key: 'admin API key', request_signing_key: 'request signing key' };
const AFTER_ROTATION: Record<Kind, string> = {
  api_secret: 'stops working at once',
  admin_api_key: 'stops working at once',
  request_signing_key: 'is still accepted for the signature window, then stops working',
};

export function SettingsPage({ app, onAppChange }: AppPageProps) {
  const [draft, setDraft] = useState(toDraft(app));
  const [saved, setSaved] = useState(false);
  const [rotated, setRotated] = useState<Record<string, string> | null>(null);
  const save = useAction();
  const danger = useAction();

  const submit = (e: Event) => {
    e.preventDefault();
    setSaved(false);
    void save.run(async () => {
      // The trial plan only when changed: one named before stays named even if it no longer offers a trial.
      const trial = draft.trial_plan_id === app.trial_plan_id ? {} : { trial_plan_id: draft.trial_plan_id };
      const updated = await patch<Application>(appPath(app.id), { ...fromDraft(draft), ...trial });
      onAppChange(updated);
      setDraft(toDraft(updated));
      setSaved(true);
    });
  };

  const rotate = (kind: Kind) =>
    runConfirmed(
      danger,
      { title: `Rotate the ${KIND_NAMES[kind]}?`, message: `The current ${KIND_NAMES[kind]} ${AFTER_ROTATION[kind]}. Clients using it must be given the new one.`, label: 'Rotate' },
      async () => setRotated(await post<Record<string, string>>(appPath(app.id, `/credentials/${kind}/rotate`))),
    );

  const remove = () =>
    runConfirmed(
      danger,
      { title: `Delete ${app.name}?`, message: 'Its users, licenses, files, variables, announcements and bans are deleted with it. This cannot be undone.', label: 'Delete application' },
      async () => {
        await del(appPath(app.id));
        navigate(`${BASE}/`);
      },
    );

  return (
    <>
      <h1>Settings</h1>
      <Card title="Application">
        <form onSubmit={submit}>
          <ErrorBanner error={save.error} />
          {saved && (
            <div class="banner banner-success" role="status">
              Settings saved.
            </div>
          )}
          <SettingsFields draft={draft} onChange={setDraft} />
          <TrialPlanField appId={app.id} value={draft.trial_plan_id} onChange={(id) => setDraft({ ...draft, trial_plan_id: id })} />
          <FormActions label="Save settings" busy={save.busy} />
        </form>
      </Card>
      <Card title="Credentials">
        <p>
          API key: <code class="mono">{app.api_key}</code>
        </p>
        <ErrorBanner error={danger.error} />
        {rotated ? (
          <SecretsOnce title="New credential" secrets={rotated} onDone={() => setRotated(null)} />
        ) : (
          <div class="actions actions-start">
            <button type="button" class="btn" onClick={() => void rotate('api_secret')}>
              Rotate API secret
            </button>
            <button type="button" class="btn" onClick={() => void rotate('admin_api_key')}>
              Rotate admin API key
            </button>
            <button type="button" class="btn" onClick={() => void rotate('request_signing_key')}>
              Rotate request signing key
            </button>
          </div>
        )}
      </Card>
      <ResponseSigningCard app={app} onAppChange={onAppChange} />
      <Card title="Danger zone">
        <p>Deleting the application deletes everything it owns.</p>
        <button type="button" class="btn btn-danger" onClick={() => void remove()}>
          Delete application
        </button>
      </Card>
    </>
  );
}
