import { useState } from 'preact/hooks';
import { post } from '../api.js';
import { SecretsOnce } from '../components/copy-button.js';
import { ErrorBanner } from '../components/error-banner.js';
import { Card, FormActions } from '../components/fields.js';
import { DEFAULT_SETTINGS, fromDraft, SettingsFields, toDraft } from '../components/settings-form.js';
import { useAction } from '../components/use-load.js';
import { Link } from '../components/link.js';
import { appHref, BASE, navigate } from '../router.js';
import type { Application, Credentials } from '../types.js';

export function NewApplicationPage() {
  const [draft, setDraft] = useState(toDraft(DEFAULT_SETTINGS));
  const [created, setCreated] = useState<{ application: Application; credentials: Credentials } | null>(null);
  const action = useAction();
  const submit = (e: Event) => {
    e.preventDefault();
    void action.run(async () => setCreated(await post('/applications', fromDraft(draft))));
  };
  return (
    <main class="content narrow">
      <Link href={`${BASE}/`} class="back-link">
        ‹ All applications
      </Link>
      <h1>New application</h1>
      {created ? (
        <SecretsOnce title={`${created.application.name} is ready`} secrets={{ ...created.credentials }} onDone={() => navigate(appHref(created.application.id))} />
      ) : (
        <Card>
          <form onSubmit={submit}>
            <ErrorBanner error={action.error} />
            <SettingsFields draft={draft} onChange={setDraft} />
            <FormActions label="Create application" busy={action.busy} />
          </form>
        </Card>
      )}
    </main>
  );
}
