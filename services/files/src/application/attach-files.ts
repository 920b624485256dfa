import { type attachFiles as attachFilesRoute, type z } from '@market/contracts';
import { UnknownFiles } from '../domain/errors';
import { isFileKey } from '../domain/file-key';
import { existingKeys, insertAttachments } from '../persistence/file-repository';
import type { FilesDeps } from './deps';

export type AttachFilesInput = z.infer<NonNullable<typeof attachFilesRoute.body>>;

/**
 * Lets `reader_ids` read the private files `keys` (the orders service attaches handoff and dispute
 * evidence to both parties) for as long as that business runs. All or nothing: one unknown key
 * refuses the whole call, so a caller never believes evidence is shared when it is not. Repeating
 * a call changes nothing; a business whose grants ended gets none (`attached: 0`).
 */
export async function attachFiles(deps: FilesDeps, input: AttachFilesInput): Promise<{ attached: number }> {
  const keys = [...new Set(input.keys)];
  const readerIds = [...new Set(input.reader_ids.map((id) => id.toLowerCase()))];
  return deps.db.transaction(async (tx) => {
    const known = await existingKeys(tx, keys.filter(isFileKey));
    const unknown = input.keys
      .map((key, index) => ({ key, index }))
      .filter(({ key }) => !known.has(key))
      .map(({ index }) => ({ path: `keys.${index}`, message: 'no such file' }));
    if (unknown.length > 0) throw new UnknownFiles(unknown);
    // an order that already ended shares nothing more (ADR 0056)
    const granted = await insertAttachments(tx, { keys, readerIds, bizType: input.biz_type, bizId: input.biz_id });
    return { attached: granted ? keys.length : 0 };
  });
}
