import path from 'node:path';
import { z } from '@market/contracts';

export const filesEnvShape = {
  /** root of the local-disk storage; uploads are received in a temporary folder inside it */
  FILES_STORAGE_DIR: z
    .string()
    .min(1)
    .default('var/files')
    .transform((dir) => path.resolve(dir)),
};
