import { $OpenApiUtil } from '@alicloud/openapi-core';
import { splitEndpoint } from './provider-endpoint';

/** What every Alibaba Cloud client of identity is built from (SMS, ID verification). */
export interface AliyunClientSettings {
  accessKeyId: string;
  accessKeySecret: string;
  endpoint: string;
  timeoutMs: number;
}

/** The SDK's client configuration: the endpoint split into host and protocol, one timeout for connect and read. */
export function aliyunOpenApiConfig(settings: AliyunClientSettings): $OpenApiUtil.Config {
  const { protocol, host } = splitEndpoint(settings.endpoint);
  return new $OpenApiUtil.Config({
    accessKeyId: settings.accessKeyId,
    accessKeySecret: settings.accessKeySecret,
    endpoint: host,
    protocol,
    connectTimeout: settings.timeoutMs,
    readTimeout: settings.timeoutMs,
  });
}
