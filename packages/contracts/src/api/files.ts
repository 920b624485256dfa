import { z } from '../zod';
import { routesOf } from './route';

const fileRoute = routesOf('files', { tags: ['files'] });
const adminFileRoute = routesOf('files', { tags: ['admin-files'] });

/** `listing` and `avatar` are public; the others are readable only by the uploader, the order's parties and the back office. */
export const FileScene = z.enum(['listing', 'handoff', 'dispute', 'realname', 'avatar']);
export const FileContentType = z.enum(['image/jpeg', 'image/png', 'image/webp', 'application/pdf']);

/** 10 MB, the largest file accepted. */
export const MAX_FILE_BYTES = 10 * 1024 * 1024;

export const FileObject = z
  .object({
    key: z.string().openapi({ example: 'listing/2026/11/0193a1b2-7c3d-7e4f-8a9b-0c1d2e3f4a5b.png' }),
    url: z.string().openapi({ example: '/api/files/object?key=listing%2F2026%2F11%2F0193a1b2-7c3d-7e4f-8a9b-0c1d2e3f4a5b.png' }),
    content_type: FileContentType,
    size: z.number().int().openapi({ description: 'bytes' }),
    scene: FileScene,
  })
  .openapi('FileObject');

const FileKeyQuery = z.object({ key: z.string().min(1).max(200) }).strict();

export const uploadFile = fileRoute('post /api/files/upload', { id: 'uploadFile', auth: 'user',
  summary: 'Upload a JPG, PNG, WebP or PDF file (10 MB at most)',
  description: 'The type is decided by the file’s bytes, not its name or part header (415 otherwise).',
  bodyType: 'multipart',
  body: z
    .object({
      file: z.any().openapi({ type: 'string', format: 'binary' }),
      scene: FileScene.optional().openapi({ description: 'default listing' }),
    })
    .strict(),
  success: { status: 201, description: 'the stored file', schema: FileObject }, errors: [400, 401, 403, 413, 415],
});

export const readFile = fileRoute('get /api/files/object', { id: 'readFile', auth: 'public', token: 'optional',
  summary: 'Read a file through the proxy',
  description:
    'Public scenes need no token; private ones need the token of the uploader or of a party of the order the file is attached to (404 to anyone else). ' +
    'Sends the stored content type, X-Content-Type-Options: nosniff, an ETag and Content-Disposition (attachment for PDF).',
  query: FileKeyQuery,
  conditional: true,
  success: { status: 200, description: 'the file bytes, with the stored content type', contentType: FileContentType.options }, errors: [400, 401, 404],
});

/** docs/rules.md §6: where a stored file is read, by key; what FileObject.url and the order and dispute views hand out. */
export function fileUrl(key: string): string {
  return `${readFile.path}?key=${encodeURIComponent(key)}`;
}

export const adminReadFile = adminFileRoute('get /api/admin/files/object', { id: 'adminReadFile', auth: 'admin', permission: 'files.read',
  summary: 'Read any file, private ones included (the read is audited)',
  query: FileKeyQuery,
  conditional: true,
  success: { status: 200, description: 'the file bytes, with the stored content type', contentType: FileContentType.options }, errors: [400, 401, 403, 404],
});

export const filesRoutes = [uploadFile, readFile, adminReadFile];
