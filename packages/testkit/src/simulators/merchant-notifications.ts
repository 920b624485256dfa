/**
 * Where a payment provider's simulator delivers the notifications a merchant asked for at its
 * `notify_url`: that URL's path and query on the stack a test routes them to (`routeTo`, the
 * simulator's `routeNotificationsTo`), or the URL itself until one is named.
 */
export function merchantNotifications() {
  let base: string | null = null;
  return {
    routeTo(url: string) {
      base = url;
    },
    /** Posts a notification as the provider would; answers what the merchant's endpoint said. */
    async deliver(notifyUrl: string, request: { headers: Record<string, string>; body: string }): Promise<{ status: number; text: string }> {
      const target = new URL(notifyUrl);
      const to = base ? new URL(target.pathname + target.search, base) : target;
      const res = await fetch(to, { method: 'POST', headers: request.headers, body: request.body });
      return { status: res.status, text: await res.text() };
    },
  };
}
