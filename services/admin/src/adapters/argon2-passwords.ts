import { randomBytes } from 'node:crypto';
import { argon2id, hash, verify } from 'argon2';
import type { PasswordHasher } from '../application/ports';

export class Argon2Passwords implements PasswordHasher {
  private dummyHash: Promise<string> | null = null;

  hash(password: string) {
    return hash(password, { type: argon2id });
  }

  async verify(passwordHash: string, password: string) {
    return verify(passwordHash, password).catch(() => false);
  }

  async verifyAgainstNobody(password: string) {
    this.dummyHash ??= this.hash(randomBytes(32).toString('base64url'));
    await this.verify(await this.dummyHash, password);
  }
}
