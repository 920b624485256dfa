/**
 * What a test file started and has not stopped yet. Every start registers its stop here, so the
 * teardown that jest runs after each file (`teardown.ts`, in the preset) stops what a failed setup
 * or a forgotten `afterAll` left open: an open server, pool or connection would keep jest alive.
 */
const open = new Set<() => Promise<void>>();

/** Registers `close` and returns it wrapped to run once and unregister itself. */
export function closeOnTeardown(close: () => Promise<void>): () => Promise<void> {
  let closing: Promise<void> | null = null;
  const once = () => {
    open.delete(once);
    closing ??= close();
    return closing;
  };
  open.add(once);
  return once;
}

/** Stops everything still registered, most recent first. */
export async function closeLeftovers(): Promise<void> {
  const errors: unknown[] = [];
  for (const close of [...open].reverse()) await close().catch((err) => errors.push(err));
  if (errors.length > 0) throw new AggregateError(errors, 'stopping what the test file left open failed');
}
