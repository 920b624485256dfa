// A module of its own: the auth area checks ids too, without loading the database driver.
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Ids from the outside are checked before they reach SQL: a malformed id is simply "not found". */
export function isUuid(value: unknown): value is string {
  return typeof value === 'string' && UUID.test(value);
}
