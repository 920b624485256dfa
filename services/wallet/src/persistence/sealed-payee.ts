import { sealedAt, type SecretBox } from '@market/shared/crypto';
import { maskPayeeAccount, maskPayeeName } from '../domain/withdrawal';
import { PAYEE_ACCOUNT_SEALED, PAYEE_NAME_SEALED, type WithdrawalRow } from './withdrawal-repository';

export interface Payee {
  account: string;
  name: string;
}

/** The payee columns of withdrawal `id`: account and name sealed to that row, and the masked forms views and events show. */
export function sealPayee(secrets: SecretBox, id: string, payee: Payee) {
  return {
    payee_account_sealed: secrets.seal(payee.account, sealedAt(PAYEE_ACCOUNT_SEALED, id)),
    payee_name_sealed: secrets.seal(payee.name, sealedAt(PAYEE_NAME_SEALED, id)),
    payee_account_masked: maskPayeeAccount(payee.account),
    payee_name_masked: maskPayeeName(payee.name),
  };
}

/** Opens a withdrawal's payee name, for identity's check that the payee is still the user's real name. */
export function openPayeeName(secrets: SecretBox, row: Pick<WithdrawalRow, 'id' | 'payee_name_sealed'>): string {
  return secrets.open(row.payee_name_sealed, sealedAt(PAYEE_NAME_SEALED, row.id));
}

/** Opens a withdrawal's payee, for the transfer only; a value moved from another row does not open. */
export function openPayee(secrets: SecretBox, row: Pick<WithdrawalRow, 'id' | 'payee_account_sealed' | 'payee_name_sealed'>): Payee {
  return { account: secrets.open(row.payee_account_sealed, sealedAt(PAYEE_ACCOUNT_SEALED, row.id)), name: openPayeeName(secrets, row) };
}
