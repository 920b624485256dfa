import { MAX_MONEY_FEN, z } from '@market/contracts';
import { secret } from '@market/shared/config';

const fen = z.coerce.number().int().min(1).max(MAX_MONEY_FEN);

/** The wallet's environment, on top of what every service reads. */
export const walletEnv = {
  /** `sandbox` is the development gateway (a pay page of this system); refused in production */
  PAYGATE_PROVIDER: z.enum(['sandbox']).default('sandbox'),
  /** HMAC key of the Paygate-Signature on payment callbacks (CONTRACT §5) */
  PAYGATE_SECRET: secret('dev-only-paygate-secret-00000000000000000000000'),
  RECHARGE_MIN_FEN: fen.default(100),
  RECHARGE_MAX_FEN: fen.default(5_000_000),
  /** how long a recharge payment may stay unpaid */
  RECHARGE_EXPIRY_MINUTES: z.coerce.number().int().min(1).max(24 * 60).default(15),
  /** how often overdue pending payments are looked at */
  PAYMENT_EXPIRY_SCAN_MS: z.coerce.number().int().min(10).default(30_000),
  WALLET_CURRENCY: z.string().regex(/^[A-Z]{3}$/).default('CNY'),
};
