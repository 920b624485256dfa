import { createHash, createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { sendJson, startSimulatorServer, type SimulatorServer } from './simulator-server';

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

export interface AliyunSmsSimulator extends SimulatorServer {
  mode: AliyunSmsMode;
  /** messages accepted with `Code: OK`, oldest first */
  delivered: AliyunSmsDelivery[];
  /** every request that reached the simulator, with the error code it was answered with (`OK` when accepted) */
  calls: Array<{ action: string | undefined; answered: string }>;
  /** the template parameters of the last message delivered to the phone */
  lastTo(phone: string): Record<string, string> | undefined;
}

/** RFC 3986 percent-encoding, as ACS3 canonicalisation requires. */
function percentEncode(value: string): string {
  return encodeURIComponent(value).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

const sha256Hex = (data: Buffer | string) => createHash('sha256').update(data).digest('hex');

const ACS3_HEADERS = ['host', 'x-acs-action', 'x-acs-content-sha256', 'x-acs-date', 'x-acs-signature-nonce', 'x-acs-version'];
const MAX_CLOCK_SKEW_MS = 15 * 60_000;

/**
 * Checks an ACS3-HMAC-SHA256 request signature the way Alibaba Cloud's gateway does: the canonical
 * request (method, path, sorted RFC 3986-encoded query, the signed headers, the body's SHA-256)
 * hashed, then HMAC-SHA256 with the AccessKey secret. Answers the API's error code, or null.
 */
function checkSignature(
  req: IncomingMessage,
  body: Buffer,
  url: URL,
  keys: Record<string, string>,
  nonces: Set<string>,
): { status: number; code: string; message: string } | null {
  const match = /^ACS3-HMAC-SHA256 Credential=([^,]+),SignedHeaders=([^,]+),Signature=([0-9a-f]+)$/.exec(req.headers.authorization ?? '');
  if (!match) return { status: 400, code: 'IncompleteSignature', message: 'The request signature does not conform to Aliyun standards.' };
  const [, keyId, signedHeaderList, signature] = match as unknown as [string, string, string, string];
  const secret = keys[keyId];
  if (secret === undefined) return { status: 404, code: 'InvalidAccessKeyId.NotFound', message: 'Specified access key is not found.' };
  const signedHeaders = signedHeaderList.split(';');
  if (ACS3_HEADERS.some((h) => !signedHeaders.includes(h))) {
    return { status: 400, code: 'IncompleteSignature', message: 'The request signature does not sign every required header.' };
  }
  if (req.headers['x-acs-content-sha256'] !== sha256Hex(body)) {
    return { status: 400, code: 'IncompleteSignature', message: 'x-acs-content-sha256 does not match the request body.' };
  }
  const date = Date.parse(String(req.headers['x-acs-date']));
  if (!Number.isFinite(date) || Math.abs(Date.now() - date) > MAX_CLOCK_SKEW_MS) {
    return { status: 400, code: 'InvalidTimeStamp.Expired', message: 'Specified time stamp or date value is expired.' };
  }
  const nonce = String(req.headers['x-acs-signature-nonce']);
  if (nonces.has(nonce)) return { status: 400, code: 'SignatureNonceUsed', message: 'Specified signature nonce was used already.' };

  const query = [...url.searchParams.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([key, value]) => `${percentEncode(key)}=${percentEncode(value)}`)
    .join('&');
  const headers = signedHeaders.map((name) => `${name}:${String(req.headers[name] ?? '').trim()}\n`).join('');
  const canonical = [req.method, url.pathname, query, headers, signedHeaders.join(';'), sha256Hex(body)].join('\n');
  const expected = createHmac('sha256', secret).update(`ACS3-HMAC-SHA256\n${sha256Hex(canonical)}`).digest();
  const given = Buffer.from(signature, 'hex');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    return {
      status: 400,
      code: 'SignatureDoesNotMatch',
      message: 'Specified signature does not match our calculation.',
    };
  }
  nonces.add(nonce);
  return null;
}

/**
 * A local Alibaba Cloud SMS API (dysmsapi 2017-05-25, SendSms) for tests: it speaks the RPC-style
 * wire format the official SDK sends (parameters in the query or a form body, JSON answers,
 * business refusals as HTTP 200 with a `Code`) and refuses any request not signed with the
 * AccessKey pair it was given.
 */
export async function startAliyunSmsSimulator(accessKey: { id: string; secret: string }): Promise<AliyunSmsSimulator> {
  const nonces = new Set<string>();
  const simulator = {
    mode: 'ok' as AliyunSmsMode,
    delivered: [] as AliyunSmsDelivery[],
    calls: [] as AliyunSmsSimulator['calls'],
    lastTo(phone: string) {
      return simulator.delivered.filter((d) => d.phone === phone).at(-1)?.params;
    },
  };

  const handle = (req: IncomingMessage, res: ServerResponse, body: Buffer) => {
    const url = new URL(req.url ?? '/', 'http://simulator');
    const action = req.headers['x-acs-action'] as string | undefined;
    const requestId = randomUUID().toUpperCase();
    const answer = (status: number, code: string, message: string, extra: Record<string, unknown> = {}) => {
      simulator.calls.push({ action, answered: code });
      sendJson(res, status, { RequestId: requestId, Code: code, Message: message, ...extra });
    };
    const refused = checkSignature(req, body, url, { [accessKey.id]: accessKey.secret }, nonces);
    if (refused) return answer(refused.status, refused.code, refused.message, { HostId: req.headers.host });
    if (action !== 'SendSms' || req.headers['x-acs-version'] !== '2017-05-25') {
      return answer(404, 'InvalidAction.NotFound', 'Specified api is not found, please check your url and method.');
    }
    const params = new URLSearchParams(url.search);
    if (String(req.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded')) {
      for (const [key, value] of new URLSearchParams(body.toString('utf8'))) params.set(key, value);
    }
    const [phone, signName, templateCode, templateParam] = ['PhoneNumbers', 'SignName', 'TemplateCode', 'TemplateParam'].map((k) => params.get(k));
    if (!phone || !signName || !templateCode) return answer(400, 'MissingParameter', 'A required parameter is missing.');

    switch (simulator.mode) {
      case 'stall':
        simulator.calls.push({ action, answered: 'stalled' });
        return;
      case 'down':
        return answer(503, 'ServiceUnavailable', 'The request has failed due to a temporary failure of the server.');
      case 'frequency':
        return answer(200, 'isv.BUSINESS_LIMIT_CONTROL', '触发号码天级流控Permits:10');
      case 'refused':
        return answer(200, 'isv.AMOUNT_NOT_ENOUGH', '账户余额不足');
      case 'ok': {
        let parsed: Record<string, string> = {};
        try {
          parsed = templateParam ? (JSON.parse(templateParam) as Record<string, string>) : {};
        } catch {
          return answer(200, 'isv.INVALID_JSON_PARAM', 'JSON参数不合法，只接受字符串值');
        }
        simulator.delivered.push({ phone, signName, templateCode, params: parsed });
        return answer(200, 'OK', 'OK', { BizId: `${Date.now()}^0` });
      }
    }
  };

  const server = await startSimulatorServer(handle);
  return Object.assign(simulator, server);
}
