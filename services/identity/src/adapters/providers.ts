import { ConfigError } from '@market/shared/config';
import { type Logger } from '@market/shared/logging';
import type { RealnameVerifier, SmsProvider } from '../application/ports';
import { LogSmsProvider } from './log-sms-provider';
import { SandboxRealnameVerifier } from './sandbox-realname-verifier';

interface ProviderConfig {
  NODE_ENV: string;
  SMS_PROVIDER: 'log';
  REALNAME_VERIFIER: 'sandbox';
}

// Both development adapters would let anyone in (a code in the response, every identity verified),
// so production refuses to start with them rather than run open.
export function createSmsProvider(config: ProviderConfig, log: Logger): SmsProvider {
  if (config.NODE_ENV === 'production') {
    throw new ConfigError(`SMS_PROVIDER=${config.SMS_PROVIDER} is for development; configure a real SMS provider in production`);
  }
  return new LogSmsProvider(log);
}

export function createRealnameVerifier(config: ProviderConfig): RealnameVerifier {
  if (config.NODE_ENV === 'production') {
    throw new ConfigError(`REALNAME_VERIFIER=${config.REALNAME_VERIFIER} is for development; configure a real verifier in production`);
  }
  return new SandboxRealnameVerifier();
}
