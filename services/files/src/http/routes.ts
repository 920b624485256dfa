import { adminReadFile, fileUrl, readFile, uploadFile } from '@market/contracts';
import { parseOrThrow, problems, route, type RouteBinding } from '@market/shared/http';
import type { FilesDeps } from '../application/deps';
import { findFileForAdmin } from '../application/find-file-for-admin';
import { findReadableFile } from '../application/find-readable-file';
import { storeUploadedFile } from '../application/store-uploaded-file';
import type { UploadReceiver } from './receive-upload';
import { sendStoredFile } from './send-stored-file';

/** The text fields of the upload; the file part itself is checked by the receiver. */
const UploadFields = uploadFile.body!.omit({ file: true });

export function fileRoutes(deps: FilesDeps, receiveUpload: UploadReceiver): RouteBinding[] {
  return [
    route(uploadFile, ({ identity, req, res }) =>
      receiveUpload(req, res, async ({ file, fields }) => {
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
      const file = await findReadableFile(deps, query.key, identity);
      await sendStoredFile(req, res, file, deps.storage, log);
    }),
    route(adminReadFile, async ({ query, identity, req, res, log }) => {
      const file = await findFileForAdmin(deps, query.key, identity);
      await sendStoredFile(req, res, file, deps.storage, log);
    }),
  ];
}
