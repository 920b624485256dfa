import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ServiceName } from '@market/contracts';
import { matchesEtag } from '@market/shared/http';

/** An answer kept: the bytes the service sent and what the gateway sends again with them. */
interface Kept {
  body: Buffer;
  etag: string;
  contentType: string;
  expiresAt: number;
}

/** Bodies larger than this are not kept (a page of listings is a few kilobytes). */
const MAX_BODY_BYTES = 256 * 1024;

/**
 * The URL as a key: the path, and the query's parameters in a stable order and one encoding, so
 * `?sort=newest&limit=20` and `?limit=20&sort=newest` share an answer (the services read the query
 * the same either way; the same name given twice keeps its order).
 */
export function microCacheKey(url: string): string {
  const query = url.indexOf('?');
  if (query === -1) return url;
  const params = new URLSearchParams(url.slice(query + 1));
  params.sort();
  return `${url.slice(0, query)}?${params.toString()}`;
}

/**
 * The gateway's short cache of anonymous answers on routes whose contract says every anonymous
 * caller gets the same answer (`edge.microCache`, ADR 0068): a repeat within `ttlMs` is answered
 * here, with the service's entity tag (a client holding it gets 304), without a hop to the service.
 * Only a 200 with an `ETag` is kept. Any other request this gateway sends to the same service (a
 * write) drops that service's answers when it starts and again when it ends, and so does a notice
 * that the service changed (`drop`, from its change channel); a read that began before a drop is
 * not kept. So a change made through this gateway shows at once, and one made otherwise (an event,
 * another gateway replica) as soon as its notice arrives; `ttlMs` bounds what a lost notice leaves.
 * While the gateway cannot hear a service's notices (`hearing(service, false)`), nothing of it is kept.
 */
export class MicroCache {
  private readonly services = new Map<ServiceName, { entries: Map<string, Kept>; generation: number; heard: boolean }>();

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries = 2000,
    private readonly now: () => number = Date.now,
  ) {}

  get enabled(): boolean {
    return this.ttlMs > 0;
  }

  private of(service: ServiceName) {
    let own = this.services.get(service);
    if (!own) {
      own = { entries: new Map(), generation: 0, heard: true };
      this.services.set(service, own);
    }
    return own;
  }

  /** Answers `req` from the cache when a fresh answer is kept; whether it did. */
  answer(service: ServiceName, key: string, req: IncomingMessage, res: ServerResponse): boolean {
    const own = this.services.get(service);
    const kept = own?.entries.get(key);
    if (!kept) return false;
    if (kept.expiresAt <= this.now()) {
      own!.entries.delete(key);
      return false;
    }
    res.setHeader('ETag', kept.etag);
    res.setHeader('Cache-Control', 'no-cache');
    if (matchesEtag(req.headers['if-none-match'], kept.etag)) {
      res.statusCode = 304;
      res.end();
      return true;
    }
    res.statusCode = 200;
    res.setHeader('Content-Type', kept.contentType);
    res.setHeader('Content-Length', kept.body.length);
    res.end(kept.body);
    return true;
  }

  /** Where the service's writes stand: taken when a read is sent, handed to `keep` with its answer. */
  generation(service: ServiceName): number {
    return this.of(service).generation;
  }

  /**
   * Keeps the service's answer to a read sent at `generation` if it is a keepable one, no drop came
   * since the read was sent, and the service's notices are heard.
   */
  keep(service: ServiceName, key: string, upstream: IncomingMessage, generation: number): void {
    const own = this.of(service);
    if (own.generation !== generation || !own.heard) return;
    const etag = upstream.headers.etag;
    const contentType = upstream.headers['content-type'];
    if (upstream.statusCode !== 200 || typeof etag !== 'string' || typeof contentType !== 'string') return;
    const chunks: Buffer[] = [];
    let bytes = 0;
    upstream.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
      if (bytes <= MAX_BODY_BYTES) chunks.push(chunk);
    });
    upstream.on('end', () => {
      if (bytes > MAX_BODY_BYTES || own.generation !== generation || !upstream.complete) return;
      if (own.entries.size >= this.maxEntries) own.entries.clear();
      own.entries.set(key, { body: Buffer.concat(chunks, bytes), etag, contentType, expiresAt: this.now() + this.ttlMs });
    });
  }

  /** `service` changed or is changing: its kept answers, and reads in flight, are dropped. */
  drop(service: ServiceName): void {
    const own = this.services.get(service);
    if (!own) return;
    own.generation += 1;
    own.entries.clear();
  }

  /**
   * Whether `service`'s change notices reach this gateway now (a service is heard until told
   * otherwise). Either way what is kept goes: from a notice lost, or from before the notices came
   * again, and a read sent before then is not kept either.
   */
  hearing(service: ServiceName, heard: boolean): void {
    this.of(service).heard = heard;
    this.drop(service);
  }
}
