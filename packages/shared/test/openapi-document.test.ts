import { allRoutes, type AnyRoute } from '@market/contracts';
import { buildOpenApiDocument } from '../src/openapi';

/**
 * A generated client is only as true as the document: every operation documents, as problems,
 * the statuses the gateway and the kit answer for what the route declares, so a new route cannot
 * ship with undocumented statuses. (The end-to-end suites hold every answer they receive against
 * the served document; this holds the document's shape without a stack.)
 */
type Json = Record<string, any>;

const document = buildOpenApiDocument(allRoutes) as Json;

function operationOf(route: AnyRoute): Json {
  return document.paths[route.path][route.method];
}

/** What a route's declared properties imply, stated here independently of the builder. */
function impliedStatuses(route: AnyRoute): number[] {
  // a body can come with any request, so malformed (400), oversized (413) and undecodable (415) too
  const statuses = [400, 413, 429, 502, 503];
  if (route.auth !== 'public' || route.token === 'optional') statuses.push(401, 403);
  if (route.bodyType !== 'raw') statuses.push(415);
  return statuses;
}

describe('the OpenAPI document', () => {
  it('has a Problem schema whose code is required', () => {
    const problem = document.components.schemas.Problem;
    expect(problem.required).toEqual(expect.arrayContaining(['type', 'title', 'status', 'code', 'detail', 'instance']));
    expect(problem.properties.code).toMatchObject({ type: 'string' });
  });

  it('documents every error an operation answers as a problem, and at least one for every operation', () => {
    const broken: string[] = [];
    for (const route of allRoutes) {
      const responses = operationOf(route).responses as Record<string, Json>;
      const errors = Object.keys(responses).filter((status) => status === 'default' || /^[45]/.test(status));
      if (errors.length === 0) broken.push(`${route.id}: no error response`);
      for (const status of errors) {
        const schema = responses[status]!.content?.['application/problem+json']?.schema;
        if (schema?.$ref !== '#/components/schemas/Problem') broken.push(`${route.id} ${status}: not a problem+json Problem`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('documents the statuses a route’s declared properties imply (validation, token, body size and type, limits, outages)', () => {
    const missing: string[] = [];
    for (const route of allRoutes) {
      const responses = operationOf(route).responses as Record<string, Json>;
      for (const status of [...route.errors, ...impliedStatuses(route)]) {
        if (!(String(status) in responses)) missing.push(`${route.id} ${status}`);
      }
      if (route.conditional && !('304' in responses)) missing.push(`${route.id} 304`);
    }
    expect(missing).toEqual([]);
  });

  it('keeps the null of a nullable reference (a bare allOf with a $ref would refuse the null)', () => {
    const wrong: string[] = [];
    const walk = (node: unknown, at: string) => {
      if (!node || typeof node !== 'object') return;
      const schema = node as Json;
      if (Array.isArray(schema.allOf) && schema.allOf.some((s: Json) => s.$ref)) {
        if (schema.allOf.some((s: Json) => s.type === 'null' || (Array.isArray(s.type) && s.type.includes('null')))) wrong.push(at);
      }
      for (const [key, value] of Object.entries(schema)) walk(value, `${at}/${key}`);
    };
    walk(document, '#');
    expect(wrong).toEqual([]);
    const dispute = document.components.schemas.AdminOrderDetail.allOf[1].properties.dispute;
    expect(dispute.anyOf).toEqual([{ $ref: '#/components/schemas/Dispute' }, { type: 'null' }]);
    expect(document.components.schemas.Order.properties.checkout.anyOf).toContainEqual({ type: 'null' });
  });
});
