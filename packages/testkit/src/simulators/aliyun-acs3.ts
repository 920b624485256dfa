import { createHash, createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { sendJson, startSimulatorServer, type SimulatorServer } from './simulator-server';

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

/** One API action a simulated Alibaba Cloud product answers: its version and what it replies to the merged parameters. */
export interface AliyunAction {
  version: string;
  /** answers HTTP status and JSON fields (RequestId is added), or `stall` to never answer */
  answer(params: URLSearchParams): { status: number; code: string; body: Record<string, unknown> } | 'stall';
}

export interface AliyunApiServer extends SimulatorServer {
  /** every request that reached the simulator, with the code it was answered with */
  calls: Array<{ action: string | undefined; answered: string }>;
}

/**
 * A local Alibaba Cloud RPC-style API for tests: it checks the ACS3-HMAC-SHA256 signature with the
 * AccessKey pair it was given, finds the action from `x-acs-action`/`x-acs-version`, merges the
 * parameters of the query and a form body (the SDKs send either), and answers JSON as the real
 * gateway does (errors with `Code`, `Message`, `RequestId`, `HostId`).
 */
export async function startAliyunApi(accessKey: { id: string; secret: string }, actions: Record<string, AliyunAction>): Promise<AliyunApiServer> {
  const nonces = new Set<string>();
  const calls: AliyunApiServer['calls'] = [];
  const server = await startSimulatorServer((req, res, body) => {
    const url = new URL(req.url ?? '/', 'http://simulator');
    const action = req.headers['x-acs-action'] as string | undefined;
    const requestId = randomUUID().toUpperCase();
    const reply = (status: number, code: string, fields: Record<string, unknown>) => {
      calls.push({ action, answered: code });
      sendJson(res, status, { RequestId: requestId, ...fields });
    };
    const refused = checkSignature(req, body, url, { [accessKey.id]: accessKey.secret }, nonces);
    if (refused) return reply(refused.status, refused.code, { Code: refused.code, Message: refused.message, HostId: req.headers.host });
    const known = action ? actions[action] : undefined;
    if (!known || req.headers['x-acs-version'] !== known.version) {
      return reply(404, 'InvalidAction.NotFound', { Code: 'InvalidAction.NotFound', Message: 'Specified api is not found, please check your url and method.' });
    }
    const params = new URLSearchParams(url.search);
    if (String(req.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded')) {
      for (const [key, value] of new URLSearchParams(body.toString('utf8'))) params.set(key, value);
    }
    const answer = known.answer(params);
    if (answer === 'stall') {
      calls.push({ action, answered: 'stalled' });
      return;
    }
    reply(answer.status, answer.code, answer.body);
  });
  return Object.assign(server, { calls });
}
