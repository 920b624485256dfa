import { EXTENSION_OF, type ContentType } from './content-type';

const MAX_STEM_LENGTH = 100;
/**
 * No file system keeps a name longer than 255 (UTF-16 units on NTFS, bytes elsewhere), so nothing
 * past that came from a real file; cutting there first keeps every regex below on a short string.
 */
const MAX_NAME_LENGTH = 255;

/** The head of `name`, at most `max` UTF-16 units, without splitting a surrogate pair. */
function head(name: string, max: number): string {
  if (name.length <= max) return name;
  const cut = name.slice(0, max);
  const last = cut.charCodeAt(cut.length - 1);
  return last >= 0xd800 && last <= 0xdbff ? cut.slice(0, -1) : cut;
}

/**
 * The name a client gave its file, made safe to store and to put back in Content-Disposition:
 * no folders, no control characters, no quotes or backslashes, bounded length, and the
 * extension of the type the bytes really are (a `report.html` that is a PNG is served as `report.png`).
 */
export function sanitiseOriginalName(clientName: string | undefined, contentType: ContentType): string {
  const name = clientName ?? '';
  const base = head(name.slice(Math.max(name.lastIndexOf('/'), name.lastIndexOf('\\')) + 1), MAX_NAME_LENGTH).normalize('NFC');
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
