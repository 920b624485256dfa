import type { VerifierDecision } from '../domain/realname';

export interface SmsProvider {
  /** a development provider hands the code back to the caller as `dev_code` */
  readonly exposesCodes: boolean;
  /** Resolves once the provider accepted the message; throws a ProviderRefusal otherwise. */
  send(phone: string, code: string): Promise<void>;
}

export interface RealnameVerifier {
  /** Resolves with the provider's decision on the person; throws a ProviderRefusal when it could not decide. */
  verify(person: { realName: string; idNumber: string }): Promise<VerifierDecision>;
}

/**
 * Why a provider did not do what was asked, in the terms the use cases act on: `unavailable`
 * (unreachable, a 5xx, a signature or account error: nothing the user did) or `throttled` (the
 * provider's own frequency limit for this phone or identity). `providerCode` is the provider's
 * code for the log; it never reaches the client.
 */
export class ProviderRefusal extends Error {
  constructor(
    readonly kind: 'unavailable' | 'throttled',
    readonly provider: string,
    readonly providerCode: string,
  ) {
    super(`${provider} ${kind}: ${providerCode}`);
  }
}
