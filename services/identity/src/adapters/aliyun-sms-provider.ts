import Dysmsapi, { SendSmsRequest } from '@alicloud/dysmsapi20170525';
import type { Logger } from '@market/shared/logging';
import { maskPhone } from '../domain/phone';
import { ProviderRefusal, type SmsProvider } from '../application/ports';
import { aliyunOpenApiConfig, type AliyunClientSettings } from './aliyun-config';

export interface AliyunSmsSettings extends AliyunClientSettings {
  signName: string;
  templateCode: string;
  templateParam: string;
}

/**
 * The per-number frequency limits of Alibaba Cloud SMS (same phone too often in a minute, hour or
 * day): the provider refused this phone, not the service, so the user is told to wait.
 */
const FREQUENCY_CODES = new Set(['isv.BUSINESS_LIMIT_CONTROL', 'isv.DAY_LIMIT_CONTROL']);

/** Alibaba Cloud SMS through its official SDK (SendSms, signed ACS3-HMAC-SHA256 by the SDK). */
export class AliyunSmsProvider implements SmsProvider {
  readonly exposesCodes = false;
  private readonly client: Dysmsapi;

  constructor(
    private readonly settings: AliyunSmsSettings,
    private readonly log: Logger,
  ) {
    this.client = new Dysmsapi(aliyunOpenApiConfig(settings));
  }

  async send(phone: string, code: string) {
    let answer: { code?: string; bizId?: string } | undefined;
    try {
      const response = await this.client.sendSms(
        new SendSmsRequest({
          phoneNumbers: phone,
          signName: this.settings.signName,
          templateCode: this.settings.templateCode,
          templateParam: JSON.stringify({ [this.settings.templateParam]: code }),
        }),
      );
      answer = response.body;
    } catch (err) {
      const providerCode = (err as { code?: string }).code ?? (err as Error).name;
      this.log.warn({ provider: 'aliyun', phone: maskPhone(phone), providerCode }, 'sms provider call failed');
      throw new ProviderRefusal('unavailable', 'aliyun', String(providerCode));
    }
    // Business refusals arrive as HTTP 200 with a Code other than OK.
    if (answer?.code === 'OK') return;
    const providerCode = answer?.code ?? 'no answer';
    this.log.warn({ provider: 'aliyun', phone: maskPhone(phone), providerCode }, 'sms provider refused the message');
    throw new ProviderRefusal(FREQUENCY_CODES.has(providerCode) ? 'throttled' : 'unavailable', 'aliyun', providerCode);
  }
}
