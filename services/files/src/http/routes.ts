import {
  adminReadFile,
  parseOrThrow,
  problems,
  readFile,
  route,
  uploadFile,
  type EventWriter,
  type RouteBinding,
  type Db,
} from '@market/shared';
import { findFileForAdmin } from '../application/find-file-for-admin';
import { findReadableFile } from '../application/find-readable-file';
import { storeUploadedFile } from '../application/store-uploaded-file';
import { fileUrl } from '../domain/file-key';
import type { Storage } from '../storage/storage';
import type { UploadReceiver } from './receive-upload';
import { sendStoredFile } from './send-stored-file';

export interface FileRoutesDeps {
  db: Db;
  events: EventWriter;
  storage: Storage;
  receiveUpload: UploadReceiver;
}

/** The text fields of the upload; the file part itself is checked by the receiver. */
const UploadFields = uploadFile.body!.omit({ file: true });

export function fileRoutes(deps: FileRoutesDeps): RouteBinding[] {
  return [
    route(uploadFile, ({ identity, req, res }) =>
      deps.receiveUpload(req, res, async ({ file, fields }) => {
        const { scene = 'listing' } = parseOrThrow(UploadFields, fields);
        if (!file) throw problems.validation([{ path: 'file', message: 'a file part named "file" is required' }]);
        const stored = await storeUploadedFile(deps, { ownerId: identity.sub, scene, received: file });
        return {
          key: stored.key,
          url: fileUrl(stored.key),
          content_type: stored.content_type,
          size: stored.size,
          scene: stored.scene,
        };
      }),
    ),
    route(readFile, async ({ query, identity, req, res, log }) => {
      const file = await findReadableFile(deps.db, query.key, identity);
      await sendStoredFile(req, res, file, deps.storage, log);
    }),
    route(adminReadFile, async ({ query, identity, req, res, log }) => {
      const file = await findFileForAdmin(deps, query.key, identity);
      await sendStoredFile(req, res, file, deps.storage, log);
    }),
  ];
}
