/** Splits a configured endpoint URL into what the SDKs take apart: the scheme and `host[:port]`. */
export function splitEndpoint(url: string): { protocol: 'http' | 'https'; host: string } {
  const parsed = new URL(url);
  return { protocol: parsed.protocol === 'http:' ? 'http' : 'https', host: parsed.host };
}
