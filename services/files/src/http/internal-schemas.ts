import { FileContentType, FileScene, Timestamp, z } from '@market/shared';

/** Shapes of the `/internal/files/*` routes (see the internal-routes agreement between services). */
export const FileMetaQuery = z.object({ key: z.string().min(1).max(200) }).strict();

export const FileMeta = z.object({
  key: z.string(),
  owner_id: z.string(),
  scene: FileScene,
  content_type: FileContentType,
  size: z.number().int(),
  sha256: z.string(),
  created_at: Timestamp,
});
export type FileMeta = z.infer<typeof FileMeta>;

export const AttachFilesBody = z
  .object({
    keys: z.array(z.string().min(1).max(200)).min(1).max(50),
    biz_type: z.string().trim().min(1).max(40),
    biz_id: z.string().trim().min(1).max(100),
    reader_ids: z.array(z.uuid()).min(1).max(20),
  })
  .strict();

export const AttachFilesResult = z.object({ attached: z.number().int() });
