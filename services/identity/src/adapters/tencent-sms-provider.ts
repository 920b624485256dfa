import { sms } from 'tencentcloud-sdk-nodejs-sms';
import type { Logger } from '@market/shared/logging';
import { maskPhone } from '../domain/phone';
import { ProviderRefusal, type SmsProvider } from '../application/ports';
import { tencentClientConfig, tencentErrorCode, type TencentCloudSettings } from './tencent-cloud';

export interface TencentSmsSettings extends TencentCloudSettings {
  endpoint: string;
  sdkAppId: string;
  signName: string;
  templateId: string;
}

/** Tencent Cloud SMS answers its per-number frequency limits with `LimitExceeded.PhoneNumber…` codes. */
const isFrequencyLimit = (code: string) => code.startsWith('LimitExceeded.');

/** Tencent Cloud SMS through its official SDK (SendSms 2021-01-11). */
export class TencentSmsProvider implements SmsProvider {
  readonly exposesCodes = false;
  private readonly client: InstanceType<typeof sms.v20210111.Client>;

  constructor(
    private readonly settings: TencentSmsSettings,
    private readonly log: Logger,
  ) {
    this.client = new sms.v20210111.Client(tencentClientConfig(settings, settings.endpoint));
  }

  async send(phone: string, code: string) {
    let status: { Code?: string } | undefined;
    try {
      const answer = await this.client.SendSms({
        PhoneNumberSet: [`+86${phone}`],
        SmsSdkAppId: this.settings.sdkAppId,
        SignName: this.settings.signName,
        TemplateId: this.settings.templateId,
        TemplateParamSet: [code],
      });
      status = answer.SendStatusSet?.[0];
    } catch (err) {
      this.refuse(phone, tencentErrorCode(err));
    }
    // The call succeeds as a whole and says per number whether that message was taken.
    if (status?.Code === 'Ok') return;
    this.refuse(phone, status?.Code ?? 'no status');
  }

  private refuse(phone: string, providerCode: string): never {
    this.log.warn({ provider: 'tencent', phone: maskPhone(phone), providerCode }, 'sms provider refused the message');
    throw new ProviderRefusal(isFrequencyLimit(providerCode) ? 'throttled' : 'unavailable', 'tencent', providerCode);
  }
}
