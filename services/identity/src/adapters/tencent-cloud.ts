import type { ClientConfig } from 'tencentcloud-sdk-nodejs-common';
import { splitEndpoint } from './provider-endpoint';

export interface TencentCloudSettings {
  secretId: string;
  secretKey: string;
  region: string;
  timeoutMs: number;
}

/** The client configuration every Tencent Cloud SDK client takes (TC3-HMAC-SHA256 signing is the SDK's default). */
export function tencentClientConfig(settings: TencentCloudSettings, endpoint: string): ClientConfig {
  const { protocol, host } = splitEndpoint(endpoint);
  return {
    credential: { secretId: settings.secretId, secretKey: settings.secretKey },
    region: settings.region,
    profile: { httpProfile: { endpoint: host, protocol: `${protocol}://`, reqTimeout: settings.timeoutMs / 1000 } },
  };
}

/** The code of a Tencent Cloud API error (`Response.Error.Code`), or what went wrong before there was an answer. */
export function tencentErrorCode(err: unknown): string {
  const { code, httpCode } = err as { code?: string; httpCode?: number };
  return code ?? (httpCode ? `HTTP ${httpCode}` : 'NetworkError');
}
