import { execFileSync } from 'node:child_process';
import { createHash, randomBytes, X509Certificate, type KeyObject } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** A certificate a simulator issued, with the key it certifies. */
export interface IssuedCertificate {
  pem: string;
  key: KeyObject;
}

/** A 20-byte serial with a leading 1, so no DER sign byte changes how it prints. */
const serial = () => `1${randomBytes(19).toString('hex')}`.toUpperCase();

/**
 * A tiny certificate authority for a test run (openssl CLI, as the runner images carry it): a
 * self-signed root, and leaves it signs, each certifying a given key.
 */
export function certificateAuthority(rootKey: KeyObject, rootSubject: string) {
  const dir = mkdtempSync(path.join(tmpdir(), 'simca-'));
  const file = (name: string) => path.join(dir, name);
  // openssl's progress lines stay out of the test output
  const openssl = (args: string[]) => execFileSync('openssl', args, { stdio: 'pipe' });
  try {
    writeFileSync(file('root.key'), rootKey.export({ type: 'pkcs8', format: 'pem' }));
    openssl(['req', '-new', '-x509', '-key', file('root.key'), '-out', file('root.crt'), '-days', '2', '-subj', rootSubject, '-set_serial', `0x${serial()}`]);
    const root = readFileSync(file('root.crt'), 'utf8');
    const leaves: string[] = [];
    return {
      root,
      issue(key: KeyObject, subject: string): string {
        const n = leaves.length;
        writeFileSync(file(`leaf${n}.key`), key.export({ type: 'pkcs8', format: 'pem' }));
        openssl(['req', '-new', '-key', file(`leaf${n}.key`), '-subj', subject, '-out', file(`leaf${n}.csr`)]);
        openssl([
          'x509', '-req', '-in', file(`leaf${n}.csr`), '-CA', file('root.crt'), '-CAkey', file('root.key'),
          '-set_serial', `0x${serial()}`, '-days', '2', '-sha256', '-out', file(`leaf${n}.crt`),
        ]);
        const pem = readFileSync(file(`leaf${n}.crt`), 'utf8');
        leaves.push(pem);
        return pem;
      },
      dispose() {
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
}

/**
 * Alipay's serial number of a certificate (证书序列号) as its gateway computes it: md5 hex of the
 * issuer's name, its attributes from last to first as `key=value` joined by commas, followed by the
 * serial in decimal. Written from Alipay's description, apart from the SDK's own computation, so a
 * test compares the two.
 */
export function alipayCertSn(pem: string): string {
  const cert = new X509Certificate(pem);
  const issuer = cert.issuer.split('\n').reverse().join(',');
  return createHash('md5').update(issuer + BigInt(`0x${cert.serialNumber}`).toString(10), 'utf8').digest('hex');
}
