import { appendFileSync } from 'node:fs';
import Ajv2020, { type ErrorObject, type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { RouteMatcher } from '@market/contracts';

/**
 * Holds every answer an end-to-end test receives from a stack's gateway against the OpenAPI
 * document that gateway serves: the status must be documented for the operation matched by
 * method and path, and a JSON answer must hold against its documented schema. A generated client
 * is only as true as the document, so a break fails the test that met it.
 */

type Json = Record<string, any>;

interface Operation {
  id: string;
  method: string;
  /** the document's path template, as the matcher reads it */
  path: string;
  pointer: string;
  responses: Record<string, Json>;
}

export interface Answer {
  method: string;
  url: string;
  status: number;
  contentType: string | null;
  /** the body's text, or undefined where it was not read (a stream, a HEAD answer) */
  text: string | undefined;
}

const DOCUMENT_ID = 'https://market.test/openapi.json';
const JSON_MEDIA = /^application\/(?:[\w.-]+\+)?json$/;

/** A JSON pointer into the document as a URI fragment. */
function fragment(...segments: string[]): string {
  return segments.map((s) => '/' + encodeURIComponent(s.replace(/~/g, '~0').replace(/\//g, '~1'))).join('');
}

function mediaType(contentType: string | null): string | null {
  return contentType ? contentType.split(';')[0]!.trim().toLowerCase() : null;
}

/** Which operation × status pairs were held against the document, for a report across a run. */
const seenPairs = new Set<string>();
function recordPair(pair: string) {
  if (seenPairs.has(pair)) return;
  seenPairs.add(pair);
  const file = process.env.MARKET_OPENAPI_PAIRS_FILE;
  if (file) appendFileSync(file, pair + '\n');
}

export class OpenApiMismatch extends Error {}

export class DocumentCheck {
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
  /** the document's operations, matched to a path as the gateway matches its routes */
  private readonly operations: RouteMatcher<Operation>;
  private readonly compiled = new Map<string, ValidateFunction>();

  constructor(document: Json) {
    addFormats(this.ajv);
    this.ajv.addSchema({ ...document, $id: DOCUMENT_ID });
    this.operations = new RouteMatcher(
      Object.entries(document.paths as Record<string, Json>).flatMap(([template, item]) =>
        Object.entries(item)
          .filter(([method]) => ['get', 'post', 'put', 'delete', 'patch'].includes(method))
          .map(([method, op]) => ({
            id: String(op.operationId),
            method: method.toUpperCase(),
            path: template,
            pointer: fragment('paths', template, method, 'responses'),
            responses: op.responses as Record<string, Json>,
          })),
      ),
    );
  }

  private validator(ref: string): ValidateFunction {
    let validate = this.compiled.get(ref);
    if (!validate) {
      validate = this.ajv.compile({ $ref: `${DOCUMENT_ID}#${ref}` });
      this.compiled.set(ref, validate);
    }
    return validate;
  }

  private fail(answer: Answer, what: string, errors?: ErrorObject[] | null): never {
    const detail = errors ? `\n${JSON.stringify(errors, null, 2)}` : '';
    const body = answer.text === undefined ? '' : `\nbody: ${answer.text.slice(0, 500)}`;
    throw new OpenApiMismatch(`OpenAPI document broken by ${answer.method} ${answer.url} → ${answer.status}: ${what}${detail}${body}`);
  }

  private validateBody(answer: Answer, label: string, schemaRef: string) {
    if (answer.text === undefined) return;
    let value: unknown;
    try {
      value = JSON.parse(answer.text);
    } catch {
      this.fail(answer, `${label}: the body is not JSON`);
    }
    const validate = this.validator(schemaRef);
    if (!validate(value)) this.fail(answer, `${label}: the body breaks the documented schema`, validate.errors);
  }

  /** Throws OpenApiMismatch when the answer is not what the document says `method path` answers. */
  check(answer: Answer) {
    const path = new URL(answer.url).pathname;
    const operation = this.operations.match(answer.method, path)?.route;
    if (!operation) {
      // nothing to document an answer in: the gateway refuses a path no contract has (404) and a
      // method a path does not take (405), both as problems
      const expected = this.operations.allowedMethods(path).length > 0 ? 405 : 404;
      if (answer.status !== expected) this.fail(answer, `no operation ${answer.method} ${path} in the document, and not a ${expected}`);
      if (mediaType(answer.contentType) !== 'application/problem+json') this.fail(answer, `a ${expected} must be a problem`);
      this.validateBody(answer, `${expected} (no operation)`, fragment('components', 'schemas', 'Problem'));
      recordPair(`(no operation) ${expected}`);
      return;
    }
    const label = `${operation.id} (${operation.method} ${operation.path})`;
    const key = [String(answer.status), `${String(answer.status)[0]}XX`, 'default'].find((k) => k in operation.responses);
    if (!key) this.fail(answer, `${label} does not document status ${answer.status}`);
    recordPair(`${operation.id} ${answer.status}`);
    const response = operation.responses[key];
    const media = mediaType(answer.contentType);
    const content = response!.content as Record<string, Json> | undefined;
    const hasBody = answer.status !== 204 && answer.status !== 304 && answer.method !== 'HEAD';
    if (!content) {
      if (hasBody && answer.text) this.fail(answer, `${label} documents no body for ${answer.status}, but one came`);
      return;
    }
    if (!hasBody) return;
    if (!media || !(media in content)) {
      this.fail(answer, `${label} documents ${Object.keys(content).join(', ')} for ${answer.status}, not ${media}`);
    }
    if (JSON_MEDIA.test(media) && content[media]!.schema) {
      this.validateBody(answer, label, `${operation.pointer}${fragment(key, 'content', media, 'schema')}`);
    }
  }
}

/** Gateways started by this process's stacks: only their answers are held against a document. */
const gateways = new Map<string, Promise<DocumentCheck> | null>();

export function registerGateway(baseUrl: string) {
  gateways.set(new URL(baseUrl).origin, null);
}

export function forgetGateway(baseUrl: string) {
  gateways.delete(new URL(baseUrl).origin);
}

function documentFor(origin: string): Promise<DocumentCheck> | undefined {
  if (!gateways.has(origin)) return undefined;
  let check = gateways.get(origin);
  if (!check) {
    check = fetch(`${origin}/api/openapi.json`).then(async (res) => {
      if (res.status !== 200) throw new Error(`${origin}/api/openapi.json answered ${res.status}`);
      return new DocumentCheck((await res.json()) as Json);
    });
    gateways.set(origin, check);
  }
  return check;
}

/**
 * Holds an answer received by other means than `checkedFetch` (a request `fetch` would alter, made
 * with node:http) against the document of the stack's gateway it came from; other addresses pass.
 */
export async function checkAnswer(answer: Answer): Promise<void> {
  const document = documentFor(new URL(answer.url).origin);
  if (document) (await document).check(answer);
}

/**
 * `fetch`, and when the address is a test stack's gateway, the answer held against the document
 * that gateway serves (status, media type, JSON schema). It takes a Request as well, so it can be
 * the SDK's `fetch`. The caller gets the response unread;
 * an open stream's body is not read here, only its status and media type are checked.
 */
export async function checkedFetch(input: string | URL | Request, init: RequestInit = {}): Promise<Response> {
  const url = input instanceof Request ? input.url : String(input);
  const method = (init.method ?? (input instanceof Request ? input.method : 'GET')).toUpperCase();
  const response = await fetch(input, init);
  const document = documentFor(new URL(url).origin);
  if (!document) return response;
  const contentType = response.headers.get('content-type');
  const media = mediaType(contentType);
  const readable = method !== 'HEAD' && (media === null || JSON_MEDIA.test(media));
  const text = readable ? await response.clone().text() : undefined;
  (await document).check({ method, url, status: response.status, contentType, text });
  return response;
}
