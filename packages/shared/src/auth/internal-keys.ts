import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, type JsonWebKey, type KeyObject } from 'node:crypto';
import { z } from 'zod';
import { INTERNAL_CALLERS, type InternalCaller } from '@market/contracts';
import { ConfigError, internalKeyEnvShape } from '../config/env';

/**
 * The keys of internal identity assertions (ADR 0053). Each issuer (the gateway, each service)
 * holds its own Ed25519 private key; every receiver holds every issuer's public keys, by key id.
 * A key id is `<issuer>:<version>`, so the key that verifies a signature also says who signed it:
 * a service's key can never pass for the gateway's.
 */
export const INTERNAL_KEY_VARIABLES = Object.keys(internalKeyEnvShape) as Array<keyof typeof internalKeyEnvShape>;

type KeyEnv = { NODE_ENV?: string } & { [K in keyof typeof internalKeyEnvShape]?: string };

export interface SigningKey {
  issuer: InternalCaller;
  kid: string;
  key: KeyObject;
}

export interface PublicKeyEntry {
  issuer: InternalCaller;
  key: KeyObject;
}

/** Public keys by key id. */
export type PublicKeys = ReadonlyMap<string, PublicKeyEntry>;

export interface InternalKeys {
  signing: SigningKey;
  publicKeys: PublicKeys;
}

/** The issuer a key id names (`orders:2026-11` → `orders`), or undefined when it names none. */
export function issuerOfKid(kid: string): InternalCaller | undefined {
  const issuer = kid.slice(0, kid.indexOf(':'));
  return (INTERNAL_CALLERS as readonly string[]).includes(issuer) ? (issuer as InternalCaller) : undefined;
}

const Jwks = z.object({ keys: z.array(z.object({ kid: z.string().min(3), kty: z.literal('OKP'), crv: z.literal('Ed25519'), x: z.string() }).passthrough()) });

/** Parses a JWKS of Ed25519 public keys; a key id that names no issuer, or a private part, is refused. */
export function parsePublicKeys(text: string): PublicKeys {
  let parsed: z.infer<typeof Jwks>;
  try {
    parsed = Jwks.parse(JSON.parse(text));
  } catch {
    throw new ConfigError('INTERNAL_PUBLIC_KEYS must be a JWKS of Ed25519 keys, each with its kid: {"keys":[{"kty":"OKP","crv":"Ed25519","x":"…","kid":"gateway:1"}]}');
  }
  const keys = new Map<string, PublicKeyEntry>();
  for (const jwk of parsed.keys) {
    const issuer = issuerOfKid(jwk.kid);
    if (!issuer) throw new ConfigError(`INTERNAL_PUBLIC_KEYS: the key id ${jwk.kid} does not start with an issuer (${INTERNAL_CALLERS.join(', ')}) and ":"`);
    if ('d' in jwk) throw new ConfigError(`INTERNAL_PUBLIC_KEYS: the key ${jwk.kid} holds a private part; hand out public keys only`);
    keys.set(jwk.kid, { issuer, key: createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: jwk.x }, format: 'jwk' }) });
  }
  return keys;
}

function parsePrivateKey(text: string): KeyObject {
  try {
    const key = createPrivateKey({ key: JSON.parse(text) as JsonWebKey, format: 'jwk' });
    if (key.asymmetricKeyType !== 'ed25519') throw new Error('not Ed25519');
    return key;
  } catch {
    throw new ConfigError('INTERNAL_SIGNING_KEY must be an Ed25519 private key as a JWK: {"kty":"OKP","crv":"Ed25519","d":"…","x":"…"}');
  }
}

/** An Ed25519 private key from a 32-byte seed (PKCS#8 DER: a fixed prefix, then the seed). */
function keyFromSeed(seed: Buffer): KeyObject {
  return createPrivateKey({ key: Buffer.concat([Buffer.from('302e020100300506032b657004220420', 'hex'), seed]), format: 'der', type: 'pkcs8' });
}

const DEVELOPMENT_VERSION = 'development';

/**
 * Development keys: derived from published seeds, so every process of a development machine
 * knows every issuer's public key without configuration. Whoever reads this code can sign with
 * them, so only `NODE_ENV=development` takes them.
 */
function developmentKeys(issuer: InternalCaller): InternalKeys {
  const privateOf = (name: InternalCaller) => keyFromSeed(createHash('sha256').update(`market development internal key of ${name}`).digest());
  const publicKeys = new Map<string, PublicKeyEntry>(
    INTERNAL_CALLERS.map((name) => [`${name}:${DEVELOPMENT_VERSION}`, { issuer: name, key: createPublicKey(privateOf(name)) }]),
  );
  return { signing: { issuer, kid: `${issuer}:${DEVELOPMENT_VERSION}`, key: privateOf(issuer) }, publicKeys };
}

/**
 * The keys of `issuer` from its configuration. In development, when none of the three variables
 * is set, the published development keys; otherwise all three are needed, and a start without
 * one of them names what is missing. The signing key must be the issuer's own (its key id names
 * it) and its public half must be among the public keys, or nobody could verify what it signs.
 */
export function internalKeysOf(issuer: InternalCaller, env: KeyEnv): InternalKeys {
  const given = INTERNAL_KEY_VARIABLES.filter((name) => env[name] !== undefined && env[name] !== '');
  if (given.length === 0 && env.NODE_ENV === 'development') return developmentKeys(issuer);
  const missing = INTERNAL_KEY_VARIABLES.filter((name) => !given.includes(name));
  if (missing.length > 0) throw new ConfigError(`${issuer} needs its internal identity keys; missing: ${missing.join(', ')}`);
  const kid = env.INTERNAL_SIGNING_KEY_ID!;
  if (issuerOfKid(kid) !== issuer) throw new ConfigError(`INTERNAL_SIGNING_KEY_ID must be "${issuer}:<version>" for ${issuer}`);
  const key = parsePrivateKey(env.INTERNAL_SIGNING_KEY!);
  const publicKeys = parsePublicKeys(env.INTERNAL_PUBLIC_KEYS!);
  const published = publicKeys.get(kid);
  const own = createPublicKey(key).export({ format: 'jwk' }).x;
  if (!published || published.key.export({ format: 'jwk' }).x !== own) {
    throw new ConfigError(`INTERNAL_PUBLIC_KEYS lacks the public half of INTERNAL_SIGNING_KEY under ${kid}`);
  }
  return { signing: { issuer, kid, key }, publicKeys };
}

export interface GeneratedKeySet {
  /** the JWKS every process gets as `INTERNAL_PUBLIC_KEYS` */
  publicKeys: string;
  /** each issuer's private key (JWK JSON) and key id */
  signing: Record<InternalCaller, { key: string; kid: string }>;
}

/** A fresh key pair for each issuer (the launcher and the test stacks make one per run). */
export function generateInternalKeySet(version: string, issuers: readonly InternalCaller[] = INTERNAL_CALLERS): GeneratedKeySet {
  const pairs = issuers.map((issuer) => ({ issuer, kid: `${issuer}:${version}`, ...generateKeyPairSync('ed25519') }));
  return {
    publicKeys: JSON.stringify({ keys: pairs.map(({ kid, publicKey }) => ({ ...publicKey.export({ format: 'jwk' }), kid, alg: 'EdDSA', use: 'sig' })) }),
    signing: Object.fromEntries(
      pairs.map(({ issuer, kid, privateKey }) => [issuer, { kid, key: JSON.stringify(privateKey.export({ format: 'jwk' })) }]),
    ) as GeneratedKeySet['signing'],
  };
}

/** The variables that give `issuer` its own private key and everybody's public keys, and nothing more. */
export function internalKeyEnv(set: GeneratedKeySet, issuer: InternalCaller): Record<keyof typeof internalKeyEnvShape, string> {
  return { INTERNAL_SIGNING_KEY: set.signing[issuer].key, INTERNAL_SIGNING_KEY_ID: set.signing[issuer].kid, INTERNAL_PUBLIC_KEYS: set.publicKeys };
}
