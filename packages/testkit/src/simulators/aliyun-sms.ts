import { startAliyunApi, type AliyunApiServer } from './aliyun-acs3';

/** How the simulated Alibaba Cloud SMS answers the next SendSms calls. */
export type AliyunSmsMode =
  /** `Code: OK`, the message is recorded as delivered */
  | 'ok'
  /** `isv.BUSINESS_LIMIT_CONTROL`: the per-number frequency limit */
  | 'frequency'
  /** a business refusal that is the account's, not the phone's (`isv.AMOUNT_NOT_ENOUGH`) */
  | 'refused'
  /** HTTP 503 `ServiceUnavailable` */
  | 'down'
  /** never answers */
  | 'stall';

export interface AliyunSmsDelivery {
  phone: string;
  signName: string;
  templateCode: string;
  /** the parsed TemplateParam, e.g. `{ code: '123456' }` */
  params: Record<string, string>;
}

export interface AliyunSmsSimulator extends AliyunApiServer {
  mode: AliyunSmsMode;
  /** messages accepted with `Code: OK`, oldest first */
  delivered: AliyunSmsDelivery[];
  /** the template parameters of the last message delivered to the phone */
  lastTo(phone: string): Record<string, string> | undefined;
}

/**
 * A local Alibaba Cloud SMS API (dysmsapi 2017-05-25, SendSms) for tests: business refusals come as
 * HTTP 200 with a `Code`, as the real API sends them; requests not signed with the given AccessKey
 * pair are refused (aliyun-acs3.ts).
 */
export async function startAliyunSmsSimulator(accessKey: { id: string; secret: string }): Promise<AliyunSmsSimulator> {
  const state = {
    mode: 'ok' as AliyunSmsMode,
    delivered: [] as AliyunSmsDelivery[],
    lastTo(phone: string) {
      return state.delivered.filter((d) => d.phone === phone).at(-1)?.params;
    },
  };
  const result = (status: number, code: string, message: string, extra: Record<string, unknown> = {}) => ({
    status,
    code,
    body: { Code: code, Message: message, ...extra },
  });
  const server = await startAliyunApi(accessKey, {
    SendSms: {
      version: '2017-05-25',
      answer(params) {
        const [phone, signName, templateCode, templateParam] = ['PhoneNumbers', 'SignName', 'TemplateCode', 'TemplateParam'].map((k) => params.get(k));
        if (!phone || !signName || !templateCode) return result(400, 'MissingParameter', 'A required parameter is missing.');
        switch (state.mode) {
          case 'stall':
            return 'stall';
          case 'down':
            return result(503, 'ServiceUnavailable', 'The request has failed due to a temporary failure of the server.');
          case 'frequency':
            return result(200, 'isv.BUSINESS_LIMIT_CONTROL', '触发号码天级流控Permits:10');
          case 'refused':
            return result(200, 'isv.AMOUNT_NOT_ENOUGH', '账户余额不足');
          case 'ok': {
            let parsed: Record<string, string>;
            try {
              parsed = templateParam ? (JSON.parse(templateParam) as Record<string, string>) : {};
            } catch {
              return result(200, 'isv.INVALID_JSON_PARAM', 'JSON参数不合法，只接受字符串值');
            }
            state.delivered.push({ phone, signName, templateCode, params: parsed });
            return result(200, 'OK', 'OK', { BizId: `${Date.now()}^0` });
          }
        }
      },
    },
  });
  return Object.assign(state, server);
}
