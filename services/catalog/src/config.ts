import { DEV_KEYRING, secret, z } from '@market/shared';

export const catalogEnvShape = {
  /** when set, open uploads must carry it in `X-Upload-Token` */
  OPEN_UPLOAD_TOKEN: z.string().min(16).max(200).optional(),
  /** keyring sealing account credentials and raw open uploads: `kid:base64key[,kid:base64key...]`, first is current */
  DATA_ENCRYPTION_KEYS: secret(DEV_KEYRING),
};
