import type { IncomingMessage } from 'node:http';
import proxyAddr from 'proxy-addr';

/**
 * The caller's address as Express's `trust proxy` would compute it: the socket address unless a
 * trusted proxy (TRUST_PROXY: `true`, a hop count, or addresses/subnets) forwarded the request.
 */
export function clientAddressResolver(trustProxy: string): (req: IncomingMessage) => string | null {
  if (trustProxy === 'false') return (req) => req.socket.remoteAddress ?? null;
  const hops = Number(trustProxy);
  const trust =
    trustProxy === 'true'
      ? () => true
      : Number.isInteger(hops)
        ? (_address: string, index: number) => index < hops
        : proxyAddr.compile(trustProxy.split(',').map((s) => s.trim()));
  return (req) => proxyAddr(req, trust);
}
