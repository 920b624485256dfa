import { extendZodWithOpenApi } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';

// One place adds `.openapi()` to zod so every schema in the monorepo can carry examples and component names.
extendZodWithOpenApi(z);

export { z };

/**
 * `schema | null` for a schema registered as a component: zod-to-openapi 9 writes `.nullable()` of
 * a registered schema as a bare `$ref` (or `allOf` with it), which drops the null the route really
 * answers (asteasolutions/zod-to-openapi#387). A union with `z.null()` comes out as
 * `anyOf: [$ref, {type: null}]`, and parses and infers the same as `.nullable()`.
 */
export function orNull<T extends z.ZodType>(schema: T) {
  return z.union([schema, z.null()]);
}
