import { allRoutes, OpenUploadAccount, z } from '@market/contracts';
import { buildOpenApiDocument } from '@market/shared/openapi';

const Health = z.object({ status: z.string() });
const Readiness = z.object({ status: z.enum(['ready', 'not_ready']), checks: z.record(z.string(), z.boolean()) });

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
      summary: 'This gateway can serve: its Redis answers (checked at most once a second; a service down is not the gateway unready)',
      tags: ['operations'],
      // a probe reads which check failed from the same shape, so the 503 is not a problem
      responses: {
        200: { description: 'ready', content: { 'application/json': { schema: Readiness } } },
        503: { description: "the gateway's own dependency is down: `status` is not_ready and `checks` names it", content: { 'application/json': { schema: Readiness } } },
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
