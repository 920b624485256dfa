import { extendZodWithOpenApi } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';

// One place adds `.openapi()` to zod so every schema in the monorepo can carry examples and component names.
extendZodWithOpenApi(z);

export { z };
