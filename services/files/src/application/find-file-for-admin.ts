import { type AdminIdentity } from '@market/shared/auth';
import { recordAudit } from '@market/shared/events';
import { FileNotFound } from '../domain/errors';
import { isFileKey } from '../domain/file-key';
import { isPublicScene } from '../domain/scene';
import { findFile, type FileRecord } from '../persistence/file-repository';
import type { FilesDeps } from './deps';

/** The back office reads any file; a private one only once the read is on the audit record. */
export async function findFileForAdmin(deps: FilesDeps, key: string, admin: AdminIdentity): Promise<FileRecord> {
  if (!isFileKey(key)) throw new FileNotFound();
  const file = await findFile(deps.db, key);
  if (!file) throw new FileNotFound();
  if (!isPublicScene(file.scene)) {
    await deps.db.transaction((tx) =>
      recordAudit(deps.events, tx, admin, {
        action: 'file.read_private',
        biz_type: 'file',
        biz_id: file.key,
        detail: { scene: file.scene, owner_id: file.owner_id, content_type: file.content_type },
      }),
    );
  }
  return file;
}
