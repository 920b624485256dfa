export interface PasswordHasher {
  hash(password: string): Promise<string>;
  verify(passwordHash: string, password: string): Promise<boolean>;
  /** does the work of a real check, so an unknown username answers as slowly as a known one */
  verifyAgainstNobody(password: string): Promise<void>;
}
