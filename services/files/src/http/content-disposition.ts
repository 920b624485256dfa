import { asciiFallbackName } from '../domain/file-name';

/** RFC 5987 value: what encodeURIComponent leaves out of attr-char is escaped too. */
function encodeExtValue(value: string): string {
  return encodeURIComponent(value).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/** RFC 6266: an ASCII `filename` for old clients and the exact UTF-8 name in `filename*`. */
export function contentDisposition(type: 'attachment' | 'inline', name: string): string {
  return `${type}; filename="${asciiFallbackName(name)}"; filename*=UTF-8''${encodeExtValue(name)}`;
}
