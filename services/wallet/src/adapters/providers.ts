import { ConfigError } from '@market/shared/config';
import { type Db } from '@market/shared/db';
import { type Logger } from '@market/shared/logging';
import { SandboxPaymentGateway } from './sandbox-gateway';

interface GatewayConfig {
  NODE_ENV: string;
  PAYGATE_PROVIDER: 'sandbox';
  PAYGATE_SECRET: string;
}

// The sandbox lets anyone mark a payment paid and credit a wallet with money that never arrived,
// so production refuses to start with it rather than run open.
export function createPaymentGateway(config: GatewayConfig, db: Db, log: Logger): SandboxPaymentGateway {
  if (config.NODE_ENV === 'production') {
    throw new ConfigError(`PAYGATE_PROVIDER=${config.PAYGATE_PROVIDER} is for development; configure a real payment gateway in production`);
  }
  return new SandboxPaymentGateway(db, config.PAYGATE_SECRET, log);
}
