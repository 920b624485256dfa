import { X509Certificate, type KeyObject } from 'node:crypto';
import { Aes, Formatter, Rsa, Wechatpay } from 'wechatpay-axios-plugin';
import { type Logger } from '@market/shared/logging';
import type { WechatCallbackHeaders } from '../application/receive-wechatpay-notification';
import { ProviderFailed } from '../domain/errors';

export interface WechatPayConfig {
  appId: string;
  mchId: string;
  /** the merchant's API private key (apiclient_key.pem) */
  privateKey: string;
  /** the serial number of the merchant's API certificate, named in every request's signature */
  merchantSerial: string;
  /**
   * What WeChat Pay signs with, by the id its answers and callbacks name in `Wechatpay-Serial`:
   * the WeChat Pay public key under its `PUB_KEY_ID_…`, and/or platform certificates under their
   * serial numbers. Both at once while a merchant moves from certificates to the public key.
   */
  platformKeys: Record<string, string>;
  apiV3Key: string;
  /** where WeChat Pay API v3 answers */
  baseUrl: string;
  timeoutMs: number;
}

/** The verification keys of a WeChat Pay merchant as they come from the environment. */
export interface WechatPayKeySettings {
  publicKey?: string;
  publicKeyId?: string;
  /** one or more PEM platform certificates, one after another */
  platformCertificates?: string;
}

/** WeChat Pay's public key id: new merchants get only this, and it arrives in `Wechatpay-Serial`. */
export const PUBLIC_KEY_ID = /^PUB_KEY_ID_[0-9A-Za-z]+$/;

/** The `Wechatpay-Serial` → key table of the configured verification modes. */
export function wechatPayPlatformKeys(settings: WechatPayKeySettings): Record<string, string> {
  const keys: Record<string, string> = {};
  if (settings.publicKey && settings.publicKeyId) keys[settings.publicKeyId] = settings.publicKey;
  for (const pem of settings.platformCertificates?.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? []) {
    keys[new X509Certificate(pem).serialNumber.toUpperCase()] = pem;
  }
  return keys;
}

/** The verification variables whose content is not a key or certificate WeChat Pay's answers could be checked with. */
export function unreadableWechatPayKeys(settings: WechatPayKeySettings): string[] {
  const unreadable: string[] = [];
  try {
    if (settings.publicKey) Rsa.from(settings.publicKey, Rsa.KEY_TYPE_PUBLIC);
  } catch {
    unreadable.push('WECHATPAY_PUBLIC_KEY');
  }
  try {
    if (settings.platformCertificates && Object.keys(wechatPayPlatformKeys({ platformCertificates: settings.platformCertificates })).length === 0) {
      unreadable.push('WECHATPAY_PLATFORM_CERTIFICATES');
    }
  } catch {
    unreadable.push('WECHATPAY_PLATFORM_CERTIFICATES');
  }
  return unreadable;
}

/** The serial number of the merchant's API certificate (apiclient_cert.pem), as WeChat Pay spells it. */
export const certificateSerial = (pem: string) => new X509Certificate(pem).serialNumber.toUpperCase();

/** RFC 3339 in China time, as WeChat Pay writes and wants times. */
export function wechatTime(at: Date): string {
  return `${new Date(at.getTime() + 8 * 3600_000).toISOString().slice(0, 19)}+08:00`;
}

/** A verified answer: its status and, for JSON, the parsed body (`{code, message}` on a refusal). */
export interface WechatAnswer {
  status: number;
  data: any;
}

/** How far a callback's `Wechatpay-Timestamp` may be from our clock, as WeChat Pay's own SDKs allow. */
const CALLBACK_CLOCK_SKEW_S = 300;

/**
 * One merchant's WeChat Pay API v3 client through `wechatpay-axios-plugin`: it signs every request
 * (WECHATPAY2-SHA256-RSA2048 with the merchant key and certificate serial) and verifies every answer
 * with the key its `Wechatpay-Serial` names in `platformKeys` (an unknown serial is refused). Every
 * status is read as an answer so that refusals are verified too; an answer that fails verification,
 * a timeout or a dropped connection becomes one logged `ProviderFailed`.
 */
export class WechatPayClient {
  private readonly wxpay: Wechatpay;
  private readonly keys: Record<string, KeyObject>;

  constructor(
    readonly config: WechatPayConfig,
    private readonly log: Logger,
  ) {
    this.keys = Object.fromEntries(Object.entries(config.platformKeys).map(([id, pem]) => [id, Rsa.from(pem, Rsa.KEY_TYPE_PUBLIC)]));
    this.wxpay = new Wechatpay({
      mchid: config.mchId,
      serial: config.merchantSerial,
      privateKey: config.privateKey,
      certs: this.keys,
      baseURL: `${config.baseUrl.replace(/\/$/, '')}/`,
      timeout: config.timeoutMs,
      validateStatus: () => true,
    } as ConstructorParameters<typeof Wechatpay>[0]);
  }

  /**
   * Sends one signed request (`path` without the leading slash). `params` is the query, kept apart
   * from the path because the library knows its unsigned downloads by the bare path; `raw` answers
   * the bytes unparsed; `serial` names the WeChat Pay key a body's encrypted field was encrypted for.
   */
  async request(
    what: string,
    method: 'get' | 'post',
    path: string,
    opts: { body?: unknown; params?: Record<string, string>; raw?: boolean; serial?: string } = {},
  ): Promise<WechatAnswer> {
    try {
      const res = await this.wxpay.client.request(path, method, opts.body, {
        ...(opts.params ? { params: opts.params } : {}),
        ...(opts.raw ? { responseType: 'arraybuffer' } : {}),
        ...(opts.serial ? { headers: { 'Wechatpay-Serial': opts.serial } } : {}),
      });
      return { status: res.status, data: res.data };
    } catch (err) {
      this.log.warn({ provider: 'wechatpay', what, err: { name: (err as Error).name, code: (err as { code?: string }).code } }, 'WeChat Pay call failed');
      throw new ProviderFailed('WeChat Pay', what);
    }
  }

  /** Whether a callback carries WeChat Pay's signature over these exact bytes, by the key its serial names, within the clock window. */
  verifyCallback(headers: WechatCallbackHeaders, body: string): boolean {
    if (!/^\d{1,12}$/.test(headers.timestamp) || Math.abs(Date.now() / 1000 - Number(headers.timestamp)) > CALLBACK_CLOCK_SKEW_S) return false;
    const key = Object.hasOwn(this.keys, headers.serial) ? this.keys[headers.serial] : undefined;
    if (!key || !headers.signature) return false;
    try {
      return Rsa.verify(Formatter.response(headers.timestamp, headers.nonce, body), headers.signature, key);
    } catch {
      return false;
    }
  }

  /** A callback's AEAD_AES_256_GCM `resource` opened with the API v3 key; null when it does not open. */
  decrypt(resource: { ciphertext?: string; associated_data?: string; nonce?: string } | undefined): Record<string, any> | null {
    if (!resource?.ciphertext || !resource.nonce) return null;
    try {
      const plain: unknown = JSON.parse(Aes.AesGcm.decrypt(resource.ciphertext, this.config.apiV3Key, resource.nonce, resource.associated_data ?? ''));
      return typeof plain === 'object' && plain !== null ? (plain as Record<string, any>) : null;
    } catch {
      return null;
    }
  }

  /**
   * A sensitive field (a payee's name) encrypted RSA-OAEP for WeChat Pay, with the serial to send
   * in `Wechatpay-Serial`: the public key when configured, else a platform certificate.
   */
  encryptSensitive(plain: string): { serial: string; ciphertext: string } {
    const serial = Object.keys(this.keys).sort((a, b) => Number(PUBLIC_KEY_ID.test(b)) - Number(PUBLIC_KEY_ID.test(a)))[0]!;
    return { serial, ciphertext: Rsa.encrypt(plain, this.keys[serial]!) };
  }
}
