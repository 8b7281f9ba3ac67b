// The application's response signing key: the public key clients pin, and its rotation in two
// steps (docs/api.md, Response signing): a new key signs beside the old one until the old is removed.
import { appPath, del, get, post } from '../api.js';
import type { Application } from '../types.js';
import type { AppPageProps } from './app-shell.js';
import { CopyButton } from './copy-button.js';
import { ErrorBanner } from './error-banner.js';
import { Card } from './fields.js';
import { type Ask, runConfirmed, useAction } from './use-load.js';

export function ResponseSigningCard({ app, onAppChange }: AppPageProps) {
  const action = useAction();
  /** One step of a rotation: asked first, then the application as it now stands. */
  const step = (ask: Ask, request: () => Promise<unknown>) =>
    runConfirmed(action, ask, async () => {
      await request();
      onAppChange(await get<Application>(appPath(app.id)));
    });

  const rotate = () =>
    step(
      { title: 'Rotate the response signing key?', message: 'A new key signs every answer beside the current one. Give clients the new public key, then remove the previous key.', label: 'Rotate' },
      () => post(appPath(app.id, '/credentials/response_signing_key/rotate')),
    );

  const removePrevious = () =>
    step({ title: 'Remove the previous key?', message: 'It stops signing at once: clients that pin only the previous key refuse every answer from then on.', label: 'Remove previous key' }, () =>
      del(appPath(app.id, '/credentials/response_signing_key/previous')),
    );

  return (
    <Card title="Response signing key">
      <p>Clients pin this public key to check that answers come from this server.</p>
      <ErrorBanner error={action.error} />
      {app.response_signing_public_key === null ? (
        <p>The key is issued when the server next starts.</p>
      ) : (
        <dl class="secret-list">
          <div class="secret-row">
            <dt>Public key</dt>
            <dd>
              <code data-public-key>{app.response_signing_public_key}</code>
              <CopyButton value={app.response_signing_public_key} />
            </dd>
          </div>
          <div class="secret-row">
            <dt>Key id</dt>
            <dd>
              <code data-key-id>{app.response_signing_key_id}</code>
            </dd>
          </div>
        </dl>
      )}
      {app.response_signing_previous_key_id === null ? (
        <div class="actions actions-start">
          <button type="button" class="btn" disabled={action.busy} onClick={() => void rotate()}>
            Rotate response signing key
          </button>
        </div>
      ) : (
        <>
          <p>
            Rotation in progress: the previous key <code data-previous-key-id>{app.response_signing_previous_key_id}</code> also signs every answer. Remove it once every client pins the new public
            key.
          </p>
          <div class="actions actions-start">
            <button type="button" class="btn btn-danger" disabled={action.busy} onClick={() => void removePrevious()}>
              Remove previous key
            </button>
          </div>
        </>
      )}
    </Card>
  );
}
