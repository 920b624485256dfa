import Cloudauth, { Id2MetaVerifyRequest } from '@alicloud/cloudauth20190307';
import type { Logger } from '@market/shared/logging';
import type { VerifierDecision } from '../domain/realname';
import { ProviderRefusal, type RealnameVerifier } from '../application/ports';
import { aliyunOpenApiConfig, type AliyunClientSettings } from './aliyun-config';

export type AliyunRealnameSettings = AliyunClientSettings;

/** Id2MetaVerify's `BizCode`: 1 name and id number agree, 2 they do not, 3 the registry has no such id number. */
const BIZ_CODES: Record<string, VerifierDecision> = { '1': 'verified', '2': 'failed', '3': 'failed' };

/** Alibaba Cloud ID verification, two-factor (name + id number, cloudauth Id2MetaVerify), through its official SDK. */
export class AliyunRealnameVerifier implements RealnameVerifier {
  private readonly client: Cloudauth;

  constructor(
    settings: AliyunRealnameSettings,
    private readonly log: Logger,
  ) {
    this.client = new Cloudauth(aliyunOpenApiConfig(settings));
  }

  async verify({ realName, idNumber }: { realName: string; idNumber: string }): Promise<VerifierDecision> {
    let answer: { code?: string; resultObject?: { bizCode?: string } } | undefined;
    try {
      answer = (await this.client.id2MetaVerify(new Id2MetaVerifyRequest({ paramType: 'normal', identifyNum: idNumber, userName: realName }))).body;
    } catch (err) {
      return this.unavailable(String((err as { code?: string }).code ?? (err as Error).name));
    }
    // Refusals of the account or the request (unpaid, no permission, system error) come as HTTP 200 with another Code.
    if (answer?.code !== '200') return this.unavailable(`Code ${answer?.code}`);
    return BIZ_CODES[answer.resultObject?.bizCode ?? ''] ?? this.unavailable(`BizCode ${answer.resultObject?.bizCode}`);
  }

  private unavailable(providerCode: string): never {
    this.log.warn({ provider: 'aliyun-cloudauth', providerCode }, 'real-name provider could not decide');
    throw new ProviderRefusal('unavailable', 'aliyun-cloudauth', providerCode);
  }
}
