/**
 * What ends with a client `connectRedis` made: connections of its own opened from it (a
 * subscriber), which its owner never sees and so would never close. Ending the client ends them.
 */
const dependents = new WeakMap<object, Set<() => void>>();

/** Runs `end` when `client` is quit, closed or destroyed. */
export function endsWith(client: object, end: () => void): void {
  let set = dependents.get(client);
  if (!set) {
    set = new Set();
    dependents.set(client, set);
  }
  set.add(end);
}

/** Ends what ends with `client`; called once it is being ended. */
export function endDependents(client: object): void {
  const set = dependents.get(client);
  if (!set) return;
  dependents.delete(client);
  for (const end of set) end();
}
