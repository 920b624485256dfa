/**
 * Polls `probe` until `accept` holds (events travel through the broker, so their effects arrive a
 * moment later); fails with the last value seen when time runs out.
 */
export async function eventually<T>(
  probe: () => Promise<T>,
  accept: (value: T) => boolean = (value) => value !== undefined,
  timeoutMs = 10_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (accept(value)) return value;
    if (Date.now() > deadline) throw new Error(`condition not met in time; last value: ${JSON.stringify(value)?.slice(0, 500)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
