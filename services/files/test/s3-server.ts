import { createHash, createHmac, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ListObjectsV2Command, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { SignatureV4 } from '@smithy/signature-v4';
import S3rver from 's3rver';

/** s3rver knows one account, whose key id is this; the secret is the test's own (checked below, as a real store does). */
const ACCESS_KEY_ID = 'S3RVER';
const REGION = 'cn-test-1';
const BUCKET = 'market-files';

/** node:crypto as the SDK's hash interface (HMAC when given a secret). */
type Data = string | ArrayBuffer | ArrayBufferView;
const bytes = (data: Data) =>
  typeof data === 'string' ? data : ArrayBuffer.isView(data) ? Buffer.from(data.buffer, data.byteOffset, data.byteLength) : Buffer.from(data);

class NodeSha256 {
  private readonly hash;
  constructor(secret?: Data) {
    this.hash = secret === undefined ? createHash('sha256') : createHmac('sha256', bytes(secret));
  }
  update(data: Data) {
    this.hash.update(bytes(data));
  }
  async digest() {
    return new Uint8Array(this.hash.digest());
  }
}

/** `20261128T063000Z` as a Date */
function amzDate(value: string): Date {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(value);
  if (!m) throw new Error('bad x-amz-date');
  return new Date(Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!, +m[6]!));
}

/**
 * Whether the request carries a valid SigV4 header signature by `secret`: its signed headers are
 * signed again here and the two signatures compared. (s3rver 3 checks only that the key id exists.)
 */
async function signedWith(req: IncomingMessage, secretAccessKey: string): Promise<boolean> {
  const auth = /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/s3\/aws4_request, ?SignedHeaders=([a-z0-9;-]+), ?Signature=([0-9a-f]{64})$/.exec(
    req.headers.authorization ?? '',
  );
  if (!auth || auth[1] !== ACCESS_KEY_ID) return false;
  const signedHeaders = auth[4]!.split(';');
  const headers = Object.fromEntries(signedHeaders.map((name) => [name, String(req.headers[name] ?? '')]));
  const url = new URL(req.url ?? '/', 'http://s3.invalid');
  const query: Record<string, string | string[]> = {};
  for (const [key, value] of url.searchParams) {
    const seen = query[key];
    query[key] = seen === undefined ? value : [...(Array.isArray(seen) ? seen : [seen]), value];
  }
  const signer = new SignatureV4({
    service: 's3',
    region: auth[3]!,
    credentials: { accessKeyId: ACCESS_KEY_ID, secretAccessKey },
    sha256: NodeSha256,
    uriEscapePath: false,
    applyChecksum: false,
  });
  const signed = await signer.sign(
    { method: req.method ?? 'GET', protocol: 'http:', hostname: url.hostname, path: url.pathname, query, headers },
    { signingDate: amzDate(String(req.headers['x-amz-date'] ?? '')), signableHeaders: new Set(signedHeaders) },
  );
  const expected = /Signature=([0-9a-f]{64})/.exec(String(signed.headers.authorization))?.[1];
  return expected === auth[5];
}

/** A port free now on 127.0.0.1, below the kernel's ephemeral range (outgoing connections take those). */
function randomLowPort(): number {
  const [ephemeralLow] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
  const high = Math.max(21_000, ephemeralLow ?? 32_768);
  return 20_000 + Math.floor(Math.random() * (high - 20_000));
}

export interface TestS3 {
  /** the environment that points the files service at this server's bucket */
  env: Record<string, string>;
  bucket: string;
  endpoint: string;
  /** the S3 settings of the files service's S3Storage, as the env above gives them */
  settings: { endpoint: string; region: string; bucket: string; forcePathStyle: boolean; keyPrefix: string; accessKeyId: string; secretAccessKey: string; timeoutMs: number };
  /** every key in the bucket (the prefix included), in order */
  keys(): Promise<string[]>;
  /** writes an object as another tool would, with no metadata, under `key` (the prefix included) */
  putForeign(key: string, bytes: Buffer): Promise<void>;
  /** each object written, as its request said it: the key (without the bucket), its Content-MD5 and any ACL it asked for */
  puts(): Array<{ key: string; contentMd5: string | undefined; acl: string | undefined }>;
  /** requests refused for want of a valid signature */
  refusedSignatures: () => number;
  /** keeps taking connections and requests but answers none (a stalled store), until `stall(false)` */
  stall(on: boolean): void;
  /** stops listening and cuts every open connection: the store is down */
  stop(): Promise<void>;
  /** listens again on the same port, with the objects it had */
  start(): Promise<void>;
  /** stops for good and removes its folder */
  close(): Promise<void>;
}

/**
 * An S3-compatible server of the test's own (s3rver over a temporary folder) on a free port, one
 * private bucket, answering only requests signed with the test's secret (403 SignatureDoesNotMatch
 * otherwise, anonymous ones included). It can be stopped and started again freely: no one else uses it.
 */
export async function startTestS3(keyPrefix = ''): Promise<TestS3> {
  const directory = mkdtempSync(path.join(tmpdir(), 'files-s3-'));
  const secretAccessKey = randomBytes(20).toString('hex');
  const s3rver = new S3rver({ directory, silent: true, configureBuckets: [{ name: BUCKET, configs: [] }] });
  await s3rver.configureBuckets();
  const handle = s3rver.getMiddleware();
  let refused = 0;
  let stalled = false;
  const puts: Array<{ key: string; contentMd5: string | undefined; acl: string | undefined }> = [];
  let server: Server | null = null;
  let port = 0;

  const listen = (on: number) =>
    new Promise<Server>((resolve, reject) => {
      const s = createServer((req, res) => {
        if (stalled) return;
        signedWith(req, secretAccessKey).then(
          (ok) => {
            if (ok && req.method === 'PUT') {
              const key = decodeURIComponent(new URL(req.url ?? '/', 'http://s3.invalid').pathname).slice(`/${BUCKET}/`.length);
              puts.push({ key, contentMd5: req.headers['content-md5'] as string | undefined, acl: req.headers['x-amz-acl'] as string | undefined });
            }
            if (ok) return handle(req, res);
            refused += 1;
            res.writeHead(403, { 'content-type': 'application/xml' });
            res.end('<?xml version="1.0" encoding="UTF-8"?><Error><Code>SignatureDoesNotMatch</Code><Message>signature check failed</Message></Error>');
          },
          () => res.writeHead(400).end(),
        );
      });
      s.once('error', reject);
      s.listen(on, '127.0.0.1', () => resolve(s));
    });

  for (let attempt = 0; !server; attempt += 1) {
    port = randomLowPort();
    server = await listen(port).catch((err: NodeJS.ErrnoException) => {
      if (err.code !== 'EADDRINUSE' || attempt > 20) throw err;
      return null;
    });
  }

  const endpoint = `http://127.0.0.1:${port}`;
  async function withClient<T>(use: (client: S3Client) => Promise<T>): Promise<T> {
    const client = new S3Client({ endpoint, region: REGION, forcePathStyle: true, credentials: { accessKeyId: ACCESS_KEY_ID, secretAccessKey } });
    try {
      return await use(client);
    } finally {
      client.destroy();
    }
  }
  const settings = { endpoint, region: REGION, bucket: BUCKET, forcePathStyle: true, keyPrefix, accessKeyId: ACCESS_KEY_ID, secretAccessKey, timeoutMs: 2000 };
  const stop = async () => {
    const s = server;
    server = null;
    if (!s) return;
    const closed = new Promise((resolve) => s.close(resolve));
    s.closeAllConnections();
    await closed;
  };
  return {
    env: {
      FILES_STORAGE: 's3',
      FILES_S3_ENDPOINT: endpoint,
      FILES_S3_REGION: REGION,
      FILES_S3_BUCKET: BUCKET,
      FILES_S3_FORCE_PATH_STYLE: 'true',
      FILES_S3_KEY_PREFIX: keyPrefix,
      FILES_S3_ACCESS_KEY_ID: ACCESS_KEY_ID,
      FILES_S3_ACCESS_KEY_SECRET: secretAccessKey,
      FILES_S3_TIMEOUT_MS: '2000',
    },
    bucket: BUCKET,
    endpoint,
    settings,
    keys: () =>
      withClient(async (client) => {
        const listed = await client.send(new ListObjectsV2Command({ Bucket: BUCKET }));
        return (listed.Contents ?? []).map((object) => object.Key!).sort();
      }),
    putForeign: (key, bytes) =>
      withClient(async (client) => {
        await client.send(new PutObjectCommand({ Bucket: BUCKET, Key: key, Body: bytes }));
      }),
    refusedSignatures: () => refused,
    puts: () => [...puts],
    stall: (on) => {
      stalled = on;
      // requests left unanswered while stalled end with their connections
      if (!on) server?.closeAllConnections();
    },
    stop,
    start: async () => {
      server ??= await listen(port);
    },
    close: async () => {
      await stop();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
