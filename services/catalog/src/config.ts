import { dataEncryptionShape, z } from '@market/shared';

export const catalogEnvShape = {
  /** when set, open uploads must carry it in `X-Upload-Token` */
  OPEN_UPLOAD_TOKEN: z.string().min(16).max(200).optional(),
  /** seals account credentials and raw open uploads */
  ...dataEncryptionShape,
};
