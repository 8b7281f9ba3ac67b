import { useEffect, useState } from 'preact/hooks';
import { appPath, del, get, seg } from '../api.js';
import type { AppPageProps } from '../components/app-shell.js';
import { StatusBadge } from '../components/badge.js';
import { PagedTable, RowActions, RowButton } from '../components/data-table.js';
import { ErrorBanner } from '../components/error-banner.js';
import { Card } from '../components/fields.js';
import { UploadForm } from '../components/upload-form.js';
import { runConfirmed, useAction, useLoad } from '../components/use-load.js';
import { formatBytes, formatDateTime } from '../format.js';
import type { FileRecord } from '../types.js';

/** How often the list refreshes while an upload is being processed. */
const POLL_MS = 1000;

export function FilesPage({ app }: AppPageProps) {
  const filesPath = appPath(app.id, '/files');
  const files = useLoad(() => get<FileRecord[]>(filesPath), [filesPath]);
  const [replacing, setReplacing] = useState<FileRecord | null>(null);
  const remove = useAction();
  const pending = (files.data ?? []).some((f) => f.processing_status === 'PENDING');

  // Refresh until every upload is COMPLETED or FAILED.
  useEffect(() => {
    if (!pending) return;
    const timer = setTimeout(() => void files.reload(), POLL_MS);
    return () => clearTimeout(timer);
  }, [pending, files.data]);

  const drop = (f: FileRecord) =>
    runConfirmed(remove, { title: `Delete ${f.name}?`, message: 'Its contents are deleted and clients can no longer download it.' }, async () => {
      await del(`${filesPath}/${seg(f.id)}`);
      await files.reload();
    });

  return (
    <>
      <h1>Files</h1>
      {replacing ? (
        <Card title={`Replace the contents of ${replacing.name}`}>
          <UploadForm
            key={replacing.id}
            method="PUT"
            path={`${filesPath}/${seg(replacing.id)}`}
            replacing={replacing}
            onUploaded={() => (setReplacing(null), void files.reload())}
            onCancel={() => setReplacing(null)}
          />
        </Card>
      ) : (
        <Card title="Upload a file">
          <UploadForm method="POST" path={filesPath} onUploaded={() => void files.reload()} />
        </Card>
      )}
      <Card title="Files">
        <ErrorBanner error={files.error ?? remove.error} />
        <PagedTable
          items={files.data}
          empty="No files yet."
          headers={['Name', 'Processing', 'Storage', 'Source', 'Size', 'Updated', '']}
          row={(f) => (
            <tr key={f.id} data-file={f.name}>
              <td>
                <span class="file-name">{f.name}</span>
                <span class="muted small">
                  {f.is_public ? 'public' : 'private'}
                  {f.store_encrypted && ', encrypted'}
                </span>
                {f.processing_error && <span class="error-text small">{f.processing_error}</span>}
              </td>
              <td data-testid="processing-status">
                <StatusBadge status={f.processing_status} />
              </td>
              <td>
                <StatusBadge status={f.storage_status} />
              </td>
              <td>
                <StatusBadge status={f.source} />
              </td>
              <td>{formatBytes(f.size_bytes)}</td>
              <td>{formatDateTime(f.updated_at)}</td>
              <RowActions onDelete={() => void drop(f)}>
                {f.storage_status === 'STORED' && (
                  <a class="btn btn-small" href={`/api/console${filesPath}/${seg(f.id)}/download`} download>
                    Download
                  </a>
                )}
                <RowButton label="Replace" onClick={() => setReplacing(f)} />
              </RowActions>
            </tr>
          )}
        />
      </Card>
    </>
  );
}
