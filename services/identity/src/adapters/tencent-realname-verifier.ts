import { CommonClient } from 'tencentcloud-sdk-nodejs-common';
import type { Logger } from '@market/shared/logging';
import type { VerifierDecision } from '../domain/realname';
import { ProviderRefusal, type RealnameVerifier } from '../application/ports';
import { tencentClientConfig, tencentErrorCode, type TencentCloudSettings } from './tencent-cloud';

export interface TencentRealnameSettings extends TencentCloudSettings {
  endpoint: string;
}

/**
 * IdCardVerification's `Result` codes. 0 and -1 are the billed answers (match, mismatch); -2/-3
 * (malformed id number or name) and -5 (no such id number) are the person's, so they fail the
 * attempt too; -4 and -6 are the provider's outage and -7 its per-identity daily cap.
 */
const RESULTS: Record<string, VerifierDecision | ProviderRefusal['kind']> = {
  '0': 'verified',
  '-1': 'failed',
  '-2': 'failed',
  '-3': 'failed',
  '-5': 'failed',
  '-4': 'unavailable',
  '-6': 'unavailable',
  '-7': 'throttled',
};

/**
 * Tencent Cloud FaceID two-factor check (name + id number, IdCardVerification 2018-03-01). FaceID
 * has no sub-package on the npm registry, so the call goes through the official common SDK's
 * CommonClient, which signs it exactly as a product client would.
 */
export class TencentRealnameVerifier implements RealnameVerifier {
  private readonly client: CommonClient;

  constructor(
    settings: TencentRealnameSettings,
    private readonly log: Logger,
  ) {
    this.client = new CommonClient('faceid.tencentcloudapi.com', '2018-03-01', tencentClientConfig(settings, settings.endpoint));
  }

  async verify({ realName, idNumber }: { realName: string; idNumber: string }): Promise<VerifierDecision> {
    let result: string;
    try {
      const answer = (await this.client.request('IdCardVerification', { IdCard: idNumber, Name: realName })) as { Result?: string };
      result = String(answer.Result);
    } catch (err) {
      return this.refuse('unavailable', tencentErrorCode(err));
    }
    const outcome = RESULTS[result] ?? 'unavailable';
    if (outcome === 'unavailable' || outcome === 'throttled') return this.refuse(outcome, `Result ${result}`);
    return outcome;
  }

  private refuse(kind: ProviderRefusal['kind'], providerCode: string): never {
    this.log.warn({ provider: 'tencent-faceid', providerCode }, 'real-name provider could not decide');
    throw new ProviderRefusal(kind, 'tencent-faceid', providerCode);
  }
}
