import { createHash, createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { sendJson, startSimulatorServer, type SimulatorServer } from './simulator-server';

/** How the simulated Tencent Cloud answers the next calls of one product. */
export type TencentMode =
  /** SMS: status `Ok` and recorded; FaceID: decided from the registered people */
  | 'ok'
  /** SMS: status `LimitExceeded.PhoneNumberDailyLimit` for the number; FaceID: `Result -7` (daily cap on the identity) */
  | 'frequency'
  /** SMS: `Response.Error` `FailedOperation.InsufficientBalanceInSmsPackage`; FaceID: `Result -4` (id registry down) */
  | 'refused'
  /** HTTP 502 from the gateway, no JSON */
  | 'down'
  /** never answers */
  | 'stall';

export interface TencentSmsDelivery {
  phone: string;
  sdkAppId: string;
  signName: string;
  templateId: string;
  params: string[];
}

export interface TencentCloudSimulator extends SimulatorServer {
  smsMode: TencentMode;
  faceidMode: TencentMode;
  /** messages taken with status `Ok`, oldest first */
  delivered: TencentSmsDelivery[];
  /** every request that reached the simulator and the error or status code it was answered with */
  calls: Array<{ action: string | undefined; answered: string }>;
  /** the identities FaceID knows: id number → name */
  people: Map<string, string>;
  /** the template parameters of the last message delivered to the phone (11 digits, no +86) */
  lastTo(phone: string): string[] | undefined;
}

const sha256Hex = (data: Buffer | string) => createHash('sha256').update(data).digest('hex');
const hmac = (key: Buffer | string, data: string) => createHmac('sha256', key).update(data).digest();
const MAX_CLOCK_SKEW_SECONDS = 300;
const ACTIONS: Record<string, { version: string; product: 'sms' | 'faceid' }> = {
  SendSms: { version: '2021-01-11', product: 'sms' },
  IdCardVerification: { version: '2018-03-01', product: 'faceid' },
};

type ApiError = { code: string; message: string };
/** an API error, a decided answer, or a transport failure (a 502 page, or no answer at all) */
type Outcome = { error: ApiError } | { answered: string; response: Record<string, unknown> } | { transport: 'down' | 'stall' };

/**
 * Checks a TC3-HMAC-SHA256 signature the way Tencent Cloud's API gateway does: canonical request
 * (method, path, query, the signed headers, the payload's SHA-256), the string to sign with the
 * credential scope `date/service/tc3_request`, and the key derived from `TC3` + SecretKey through
 * date, service and `tc3_request`. The Host signed is the API's host name; behind a simulator's
 * port that is the Host header without the port, as the real API on 443 sees it.
 */
function checkSignature(req: IncomingMessage, body: Buffer, url: URL, keys: Record<string, string>): ApiError | null {
  const match = /^TC3-HMAC-SHA256 Credential=([^/]+)\/(\d{4}-\d{2}-\d{2})\/([^/]+)\/tc3_request, SignedHeaders=([^,]+), Signature=([0-9a-f]{64})$/.exec(
    req.headers.authorization ?? '',
  );
  if (!match) return { code: 'AuthFailure.InvalidAuthorization', message: 'Authorization header is not in the TC3-HMAC-SHA256 format.' };
  const [, secretId, date, service, signedHeaderList, signature] = match as unknown as [string, string, string, string, string, string];
  const secretKey = keys[secretId];
  if (secretKey === undefined) return { code: 'AuthFailure.SecretIdNotFound', message: 'The SecretId is not found, please ensure that your SecretId is correct.' };
  const timestamp = Number(req.headers['x-tc-timestamp']);
  if (!Number.isInteger(timestamp) || Math.abs(Date.now() / 1000 - timestamp) > MAX_CLOCK_SKEW_SECONDS) {
    return { code: 'AuthFailure.SignatureExpire', message: 'Signature expired. Timestamp and server time differ by more than 5 minutes.' };
  }
  const hostName = String(req.headers.host ?? '').replace(/:\d+$/, '');
  if (date !== new Date(timestamp * 1000).toISOString().slice(0, 10) || service !== hostName.split('.')[0]) {
    return { code: 'AuthFailure.InvalidAuthorization', message: 'Credential scope does not match the request.' };
  }
  const signedHeaders = signedHeaderList.split(';');
  if (!signedHeaders.includes('host') || !signedHeaders.includes('content-type')) {
    return { code: 'AuthFailure.InvalidAuthorization', message: 'SignedHeaders must include content-type and host.' };
  }
  const headers = signedHeaders
    .map((name) => `${name}:${name === 'host' ? hostName : String(req.headers[name] ?? '').trim()}\n`)
    .join('');
  const canonical = [req.method, url.pathname, url.search.slice(1), headers, signedHeaders.join(';'), sha256Hex(body)].join('\n');
  const stringToSign = `TC3-HMAC-SHA256\n${timestamp}\n${date}/${service}/tc3_request\n${sha256Hex(canonical)}`;
  const signingKey = hmac(hmac(hmac(`TC3${secretKey}`, date), service), 'tc3_request');
  const expected = hmac(signingKey, stringToSign);
  const given = Buffer.from(signature, 'hex');
  if (!timingSafeEqual(given, expected)) {
    return { code: 'AuthFailure.SignatureFailure', message: 'The provided credentials could not be validated. Please check your signature is correct.' };
  }
  return null;
}

/**
 * A local Tencent Cloud API (one endpoint for every product it plays: SMS `SendSms` 2021-01-11 and
 * FaceID `IdCardVerification` 2018-03-01) for tests. It speaks the JSON-over-POST wire format of
 * the official SDKs (`X-TC-Action`/`X-TC-Version` headers, `{"Response": …}` answers with errors in
 * `Response.Error` at HTTP 200) and refuses any request not signed with the key pair it was given.
 */
export async function startTencentCloudSimulator(key: { secretId: string; secretKey: string }): Promise<TencentCloudSimulator> {
  const simulator = {
    smsMode: 'ok' as TencentMode,
    faceidMode: 'ok' as TencentMode,
    delivered: [] as TencentSmsDelivery[],
    calls: [] as TencentCloudSimulator['calls'],
    people: new Map<string, string>(),
    lastTo(phone: string) {
      return simulator.delivered.filter((d) => d.phone === phone).at(-1)?.params;
    },
  };

  /** Decides the answer to one request; `respond` below writes it. */
  const handle = (req: IncomingMessage, body: Buffer): Outcome => {
    const url = new URL(req.url ?? '/', 'http://simulator');
    if (req.method !== 'POST' || !String(req.headers['content-type'] ?? '').startsWith('application/json')) {
      return { error: { code: 'InvalidParameter', message: 'This simulator takes POST with a JSON body, as the SDKs send.' } };
    }
    const refused = checkSignature(req, body, url, { [key.secretId]: key.secretKey });
    if (refused) return { error: refused };
    const action = req.headers['x-tc-action'] as string | undefined;
    const known = action ? ACTIONS[action] : undefined;
    if (!known || req.headers['x-tc-version'] !== known.version) {
      return { error: { code: 'InvalidAction', message: `The action ${action} with version ${req.headers['x-tc-version']} does not exist.` } };
    }
    let params: Record<string, unknown>;
    try {
      params = JSON.parse(body.toString('utf8')) as Record<string, unknown>;
    } catch {
      return { error: { code: 'InvalidParameter', message: 'The request body is not JSON.' } };
    }
    const mode = known.product === 'sms' ? simulator.smsMode : simulator.faceidMode;
    if (mode === 'stall' || mode === 'down') return { transport: mode };
    return known.product === 'sms' ? sendSms(params, mode) : idCardVerification(params, mode);
  };

  const respond = (req: IncomingMessage, res: ServerResponse, outcome: Outcome) => {
    const action = req.headers['x-tc-action'] as string | undefined;
    const RequestId = randomUUID();
    if ('transport' in outcome) {
      simulator.calls.push({ action, answered: outcome.transport });
      if (outcome.transport === 'down') res.writeHead(502, { 'content-type': 'text/html' }).end('<html><body>502 Bad Gateway</body></html>');
      return;
    }
    if ('error' in outcome) {
      simulator.calls.push({ action, answered: outcome.error.code });
      sendJson(res, 200, { Response: { Error: { Code: outcome.error.code, Message: outcome.error.message }, RequestId } });
      return;
    }
    simulator.calls.push({ action, answered: outcome.answered });
    sendJson(res, 200, { Response: { ...outcome.response, RequestId } });
  };

  function sendSms(params: Record<string, unknown>, mode: TencentMode): Outcome {
    const { PhoneNumberSet, SmsSdkAppId, SignName, TemplateId, TemplateParamSet } = params as {
      PhoneNumberSet?: string[];
      SmsSdkAppId?: string;
      SignName?: string;
      TemplateId?: string;
      TemplateParamSet?: string[];
    };
    if (!PhoneNumberSet?.length || !SmsSdkAppId || !TemplateId) {
      return { error: { code: 'MissingParameter', message: 'PhoneNumberSet, SmsSdkAppId and TemplateId are required.' } };
    }
    if (mode === 'refused') {
      return { error: { code: 'FailedOperation.InsufficientBalanceInSmsPackage', message: 'insufficient balance in SMS package' } };
    }
    const statusCode = mode === 'frequency' ? 'LimitExceeded.PhoneNumberDailyLimit' : 'Ok';
    const SendStatusSet = PhoneNumberSet.map((number) => {
      if (statusCode === 'Ok') {
        simulator.delivered.push({
          phone: number.replace(/^\+86/, ''),
          sdkAppId: SmsSdkAppId,
          signName: SignName ?? '',
          templateId: TemplateId,
          params: TemplateParamSet ?? [],
        });
      }
      return {
        SerialNo: randomUUID(),
        PhoneNumber: number,
        Fee: statusCode === 'Ok' ? 1 : 0,
        SessionContext: '',
        Code: statusCode,
        Message: statusCode === 'Ok' ? 'send success' : 'the number has reached its daily limit',
        IsoCode: 'CN',
      };
    });
    return { answered: statusCode, response: { SendStatusSet } };
  }

  function idCardVerification(params: Record<string, unknown>, mode: TencentMode): Outcome {
    const { IdCard, Name } = params as { IdCard?: string; Name?: string };
    if (!IdCard || !Name) return { error: { code: 'MissingParameter', message: 'IdCard and Name are required.' } };
    const known = simulator.people.get(IdCard);
    const [result, description] =
      mode === 'refused'
        ? ['-4', '证件库服务异常']
        : mode === 'frequency'
          ? ['-7', '身份证号码认证次数超过当日限制']
          : known === undefined
            ? ['-5', '证件库中无此身份证记录']
            : known === Name
              ? ['0', '姓名和身份证号一致']
              : ['-1', '姓名和身份证号不一致'];
    return { answered: `Result ${result}`, response: { Result: result, Description: description } };
  }

  const server = await startSimulatorServer((req, res, body) => respond(req, res, handle(req, body)));
  return Object.assign(simulator, server);
}
