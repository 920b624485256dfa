import { allRoutes, OpenUploadAccount, z } from '@market/contracts';
import { buildOpenApiDocument } from '@market/shared/openapi';

const Health = z.object({ status: z.string() });
const Readiness = z.object({ status: z.enum(['ready', 'degraded']), checks: z.record(z.string(), z.boolean()) });

/** The one public document: every service's route contracts plus the gateway's own routes. */
export function gatewayOpenApiDocument() {
  return buildOpenApiDocument(allRoutes, [
    {
      method: 'get',
      path: '/healthz',
      operationId: 'healthz',
      summary: 'The gateway process is up',
      tags: ['operations'],
      responses: { 200: { description: 'up', content: { 'application/json': { schema: Health } } } },
    },
    {
      method: 'get',
      path: '/readyz',
      operationId: 'readyz',
      summary:
        'This gateway is in rotation (checked at most once a second): `ready`, or `degraded` naming its Redis when that is away (requests with a token answer 503 meanwhile, anonymous ones keep working); a service down is not the gateway unready',
      tags: ['operations'],
      responses: {
        200: { description: '`ready`, or `degraded` with the check that is false', content: { 'application/json': { schema: Readiness } } },
      },
    },
    {
      method: 'get',
      path: '/api/openapi.json',
      operationId: 'openapi',
      summary: 'This document',
      tags: ['operations'],
      responses: { 200: { description: 'OpenAPI 3.1 document', content: { 'application/json': { schema: z.object({ openapi: z.literal('3.1.0') }) } } } },
    },
    {
      method: 'get',
      path: '/api/docs/',
      operationId: 'docs',
      summary: 'Interactive documentation over this document (`/api/docs` redirects here)',
      tags: ['operations'],
      responses: { 200: { description: 'HTML', content: { 'text/html': { schema: { type: 'string' } } } } },
    },
  ],
  // Each open-upload item is validated on its own against this shape; vendors copy its example.
  { OpenUploadAccount });
}
