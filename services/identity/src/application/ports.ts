import type { VerifierDecision } from '../domain/realname';

export interface SmsProvider {
  /** a development provider hands the code back to the caller as `dev_code` */
  readonly exposesCodes: boolean;
  send(phone: string, code: string): Promise<void>;
}

export interface RealnameVerifier {
  verify(person: { realName: string; idNumber: string }): Promise<VerifierDecision>;
}
