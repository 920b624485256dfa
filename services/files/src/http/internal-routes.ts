import type { Router } from 'express';
import { parseOrThrow } from '@market/shared';
import type { DataSource } from 'typeorm';
import { attachFiles } from '../application/attach-files';
import { getFileMeta } from '../application/get-file-meta';
import { AttachFilesBody, AttachFilesResult, FileMeta, FileMetaQuery } from './internal-schemas';

/** Routes for other services only (the kit lets nothing but a service assertion reach `/internal`). */
export function mountInternalRoutes(router: Router, deps: { db: DataSource }) {
  router.get('/files/meta', async (req, res) => {
    const { key } = parseOrThrow(FileMetaQuery, req.query, 'query');
    const file = await getFileMeta(deps.db, key);
    const meta: FileMeta = {
      key: file.key,
      owner_id: file.owner_id,
      scene: file.scene,
      content_type: file.content_type,
      size: file.size,
      sha256: file.sha256,
      created_at: file.created_at.toISOString(),
    };
    res.json(meta);
  });

  router.post('/files/attachments', async (req, res) => {
    const input = parseOrThrow(AttachFilesBody, req.body ?? {});
    res.json(AttachFilesResult.parse(await attachFiles(deps.db, input)));
  });
}
