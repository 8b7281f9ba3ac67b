import { Type, type FastifyPluginAsyncTypebox, type TProperties } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import type { Deps } from '../../../application/deps.js';
import { createFile, deleteFile, getFile, listFiles, updateFile, upsertFileByName } from '../../../application/files/file-writes.js';
import type { ApplicationRecord } from '../../../application/ports.js';
import { FILE_NAME_MAX, type FileSource } from '../../../domain/files.js';
import { validationError } from '../../../domain/errors.js';
import { Uuid, closed } from '../schemas.js';
import { sendFile } from './download.js';
import { fileJson } from './file-views.js';
import { formBoolean, formText, readUploadForm } from './multipart-upload.js';

export interface FileRoutesOptions {
  deps: Deps;
  /** ADMIN_API or DASHBOARD: recorded as the source of every write. */
  source: FileSource;
  /** The application a request acts on (admin key, or owner and app_id), checked before the body is read. */
  application: (request: FastifyRequest) => Promise<ApplicationRecord>;
  /** Path parameters the mount point adds (the console's app_id). */
  mountParams: TProperties;
}

/** Upload routes take their time receiving a body; the server's short body deadline skips them. */
const upload = { config: { upload: true } };

/** The admin file endpoints of interface.md; mounted under /api/admin and under the console. */
export const fileRoutes: FastifyPluginAsyncTypebox<FileRoutesOptions> = async (app, { deps, source, application, mountParams }) => {
  const FileParams = Type.Object({ ...mountParams, file_id: Uuid }, closed);
  const NameParams = Type.Object({ ...mountParams, name: Type.String({ minLength: 1, maxLength: FILE_NAME_MAX * 4 }) }, closed);
  const ListParams = Type.Object(mountParams, closed);

  app.post('/files', { ...upload, schema: { params: ListParams } }, async (request, reply) => {
    const target = await application(request);
    const { fields, upload: staged } = await readUploadForm(deps, request);
    if (staged === null) throw validationError('file', 'is required');
    const write = () =>
      createFile(deps, target, formText(fields, 'name'), { isPublic: formBoolean(fields, 'is_public'), storeEncrypted: formBoolean(fields, 'store_encrypted'), source }, staged, staged.staged);
    return reply.code(201).send(fileJson(await withStaged(deps, staged.staged.key, write)));
  });

  app.put('/files/by-name/:name', { ...upload, schema: { params: NameParams } }, async (request, reply) => {
    const target = await application(request);
    const { fields, upload: staged } = await readUploadForm(deps, request);
    if (staged === null) throw validationError('file', 'is required');
    if (fields.has('name')) {
      await discard(deps, staged.staged.key);
      throw validationError('name', 'is given by the path');
    }
    const write = () =>
      upsertFileByName(deps, target, request.params.name, { isPublic: formBoolean(fields, 'is_public'), storeEncrypted: formBoolean(fields, 'store_encrypted'), source }, staged, staged.staged);
    const { file, created } = await withStaged(deps, staged.staged.key, write);
    return reply.code(created ? 201 : 200).send(fileJson(file));
  });

  app.put('/files/:file_id', { ...upload, schema: { params: FileParams } }, async (request) => {
    const target = await application(request);
    const { fields, upload: staged } = await readUploadForm(deps, request);
    const write = () =>
      updateFile(deps, target, request.params.file_id, formText(fields, 'name'), { isPublic: formBoolean(fields, 'is_public'), storeEncrypted: formBoolean(fields, 'store_encrypted'), source }, staged);
    return fileJson(await withStaged(deps, staged?.staged.key ?? null, write));
  });

  app.get('/files', { schema: { params: ListParams } }, async (request) => (await listFiles(deps, await application(request))).map(fileJson));

  app.get('/files/:file_id', { schema: { params: FileParams } }, async (request) => fileJson(await getFile(deps, await application(request), request.params.file_id)));

  app.get('/files/:file_id/download', { schema: { params: FileParams } }, async (request, reply) => {
    const file = await getFile(deps, await application(request), request.params.file_id);
    return sendFile(deps, request, reply, file);
  });

  app.delete('/files/:file_id', { schema: { params: FileParams } }, async (request, reply) => {
    await deleteFile(deps, await application(request), request.params.file_id);
    return reply.code(204).send();
  });
};

async function discard(deps: Deps, key: string): Promise<void> {
  await deps.blobs.delete(key).catch(() => undefined);
}

/**
 * Form fields are checked after the file is staged (they may come after it): a bad field must not
 * leave the staged copy behind. Use-case errors discard it themselves; this covers the fields.
 */
async function withStaged<T>(deps: Deps, key: string | null, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (key !== null) await discard(deps, key);
    throw error;
  }
}
