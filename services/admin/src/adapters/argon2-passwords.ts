import { randomBytes } from 'node:crypto';
import { argon2id, hash, verify } from 'argon2';
import type { PasswordHasher } from '../application/ports';

/** argon2id's cost of one new hash: memory in KiB and passes over it (ADR 0073). A stored hash carries its own. */
export interface PasswordCost {
  memoryKib: number;
  passes: number;
}

/** What a new admin password costs unless configured otherwise: about 0.2 s of CPU per hash or login. */
export const DEFAULT_PASSWORD_COST: PasswordCost = { memoryKib: 65_536, passes: 3 };

/** OWASP's minimum for argon2id (19 MiB, 2 passes): the least the configuration accepts. */
export const MINIMUM_PASSWORD_COST: PasswordCost = { memoryKib: 19_456, passes: 2 };

export class Argon2Passwords implements PasswordHasher {
  private dummyHash: Promise<string> | null = null;

  constructor(private readonly cost: PasswordCost = DEFAULT_PASSWORD_COST) {}

  hash(password: string) {
    return hash(password, { type: argon2id, memoryCost: this.cost.memoryKib, timeCost: this.cost.passes });
  }

  async verify(passwordHash: string, password: string) {
    return verify(passwordHash, password).catch(() => false);
  }

  async verifyAgainstNobody(password: string) {
    this.dummyHash ??= this.hash(randomBytes(32).toString('base64url'));
    await this.verify(await this.dummyHash, password);
  }
}
