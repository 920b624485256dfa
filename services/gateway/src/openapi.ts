import { allRoutes, OpenUploadAccount, z } from '@market/contracts';
import { buildOpenApiDocument, ProblemSchema } from '@market/shared/openapi';

const Health = z.object({ status: z.string() });

/** The one public document: every service's route contracts plus the gateway's own routes. */
export function gatewayOpenApiDocument() {
  const problem = { 'application/problem+json': { schema: ProblemSchema } };
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
      summary: 'Redis and every service answer',
      tags: ['operations'],
      responses: {
        200: {
          description: 'ready',
          content: {
            'application/json': {
              schema: z.object({ status: z.string(), checks: z.record(z.string(), z.boolean()) }),
            },
          },
        },
        503: { description: 'a dependency is down', content: problem },
      },
    },
    {
      method: 'get',
      path: '/api/openapi.json',
      operationId: 'openapi',
      summary: 'This document',
      tags: ['operations'],
      responses: { 200: { description: 'OpenAPI 3.1 document' } },
    },
    {
      method: 'get',
      path: '/api/docs',
      operationId: 'docs',
      summary: 'Interactive documentation over this document',
      tags: ['operations'],
      responses: { 200: { description: 'HTML' } },
    },
  ],
  // Each open-upload item is validated on its own against this shape; vendors copy its example.
  { OpenUploadAccount });
}
