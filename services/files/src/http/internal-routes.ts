import { attachFiles, fileMeta } from '@market/contracts';
import { internalRoute, type InternalBinding } from '@market/shared/http';
import { attachFiles as attachFilesToReaders } from '../application/attach-files';
import type { FilesDeps } from '../application/deps';
import { getFileMeta } from '../application/get-file-meta';

/** Routes for other services only (the kit lets nothing but a service assertion reach `/internal`). */
export function filesInternalRoutes(deps: FilesDeps): InternalBinding[] {
  return [
    internalRoute(fileMeta, async ({ query }) => {
      const file = await getFileMeta(deps, query.key);
      return {
        key: file.key,
        owner_id: file.owner_id,
        scene: file.scene,
        content_type: file.content_type,
        size: file.size,
        sha256: file.sha256,
        created_at: file.created_at.toISOString(),
      };
    }),
    internalRoute(attachFiles, ({ body }) => attachFilesToReaders(deps, body)),
  ];
}
