import { EXTENSION_OF, type ContentType } from './content-type';

const MAX_STEM_LENGTH = 100;

/**
 * The name a client gave its file, made safe to store and to put back in Content-Disposition:
 * no folders, no control characters, no quotes or backslashes, bounded length, and the
 * extension of the type the bytes really are (a `report.html` that is a PNG is served as `report.png`).
 */
export function sanitiseOriginalName(clientName: string | undefined, contentType: ContentType): string {
  const base = (clientName ?? '').normalize('NFC').split(/[/\\]/).pop() ?? '';
  const cleaned = base
    .replace(/[\u0000-\u001f\u007f-\u009f"\\]/g, '')
    .replace(/\s+/g, ' ')
    .trim();
  const dot = cleaned.lastIndexOf('.');
  const stem = (dot > 0 ? cleaned.slice(0, dot) : cleaned).replace(/^[.\s]+|[.\s]+$/g, '');
  const bounded = Array.from(stem).slice(0, MAX_STEM_LENGTH).join('');
  return `${bounded || 'file'}.${EXTENSION_OF[contentType]}`;
}

/** `filename=` for old clients: printable ASCII only, and no `%` that some browsers would decode. */
export function asciiFallbackName(name: string): string {
  return name.replace(/[^\x20-\x7e]|[%"\\]/g, '_');
}
