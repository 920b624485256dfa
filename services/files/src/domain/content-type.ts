import type { FileContentType, z } from '@market/contracts';

export type ContentType = z.infer<typeof FileContentType>;

/** The only types accepted, each with the extension its keys and download names carry. */
export const EXTENSION_OF: Readonly<Record<ContentType, string>> = {
  'image/jpeg': 'jpg',
  'image/png': 'png',
  'image/webp': 'webp',
  'application/pdf': 'pdf',
};

export function isAcceptedContentType(mime: string | undefined): mime is ContentType {
  return mime !== undefined && Object.hasOwn(EXTENSION_OF, mime);
}

/** PDFs are downloaded rather than rendered in the page, so a crafted document never runs in our origin. */
export function dispositionOf(contentType: ContentType): 'attachment' | 'inline' {
  return contentType === 'application/pdf' ? 'attachment' : 'inline';
}
