import { type RealnameStatusView, type z } from '@market/contracts';
import { sealedAt, type SecretBox } from '@market/shared/crypto';
import { maskIdNumber, maskRealName } from '../domain/realname';
import { ID_NUMBER_SEALED, REAL_NAME_SEALED, type RealnameRow } from '../persistence/realname-repository';

export const NO_REALNAME: z.infer<typeof RealnameStatusView> = {
  status: 'unverified',
  real_name_masked: null,
  id_number_masked: null,
  verified_at: null,
};

/** Opens the sealed values only to mask them: the full name and number never leave the service. */
export function toRealnameView(secrets: SecretBox, row: RealnameRow) {
  return {
    status: row.status,
    real_name_masked: maskRealName(secrets.open(row.real_name_sealed, sealedAt(REAL_NAME_SEALED, row.user_id))),
    id_number_masked: maskIdNumber(secrets.open(row.id_number_sealed, sealedAt(ID_NUMBER_SEALED, row.user_id))),
    verified_at: row.verified_at?.toISOString() ?? null,
  };
}
