import { readFileSync } from 'node:fs';
import path from 'node:path';
import {
  allRoutes,
  CreateListingBody,
  UpdateListingBody,
  OpenUploadBody,
  OpenUploadAccount,
  OPEN_UPLOAD_ACCOUNT_EXAMPLE,
  ArbitrateBody,
  fileUrl,
  PaygateNotifyBody,
  type AnyRoute,
} from '../src/api';
import { allInternalRoutes } from '../src/internal';
import { eventDataSchemas } from '../src/events';
import { ownerOf } from '../src/routing';
import { supersedesConfig } from '../src/system-config';
import type { z } from '../src/zod';

// The specification's lists, kept in the repository (docs/api) so a clone tests on its own.
const API_DOCS = path.resolve(__dirname, '../../../docs/api');
const endpoints: Array<{ method: string; path: string }> = JSON.parse(
  readFileSync(path.join(API_DOCS, 'specified-endpoints.json'), 'utf8'),
);
const specifiedEvents: string[] = JSON.parse(readFileSync(path.join(API_DOCS, 'specified-events.json'), 'utf8')).events;

const key = (method: string, p: string) => `${method.toUpperCase()} ${p}`;
const routeName = (r: AnyRoute) => key(r.method, r.path);
// Routes taking raw bytes (the signed paygate callback) validate their body themselves, after the signature.
const jsonBodyRoutes = allRoutes.filter((r) => r.body && (r.bodyType ?? 'json') === 'json');

/** Paths of objects inside a schema that would accept unknown keys (records are deliberately open maps). */
function looseObjects(schema: z.ZodType, at: string): string[] {
  const def = (schema as any)._zod.def;
  switch (def.type) {
    case 'object': {
      const own = def.catchall?._zod.def.type === 'never' ? [] : [at];
      const nested = Object.entries(def.shape as Record<string, z.ZodType>).flatMap(([k, v]) => looseObjects(v, `${at}.${k}`));
      return [...own, ...nested];
    }
    case 'optional':
    case 'nullable':
    case 'default':
    case 'prefault':
    case 'readonly':
    case 'nonoptional':
    case 'catch':
      return looseObjects(def.innerType, at);
    case 'array':
      return looseObjects(def.element, `${at}[]`);
    case 'union':
      return (def.options as z.ZodType[]).flatMap((o) => looseObjects(o, at));
    case 'pipe':
      return looseObjects(def.in, at);
    default:
      return [];
  }
}

describe('route contracts', () => {
  it('cover every endpoint of the specification exactly once, plus the routes the contract or the issues added', () => {
    const declared = allRoutes.map(routeName);
    for (const e of endpoints) {
      expect(declared.filter((d) => d === key(e.method, e.path))).toHaveLength(1);
    }
    const extra = declared.filter((d) => !endpoints.some((e) => key(e.method, e.path) === d));
    expect(extra.sort()).toEqual(
      [
        'GET /api/admin/admins',
        'GET /api/admin/money-check',
        'GET /api/admin/notifications',
        'GET /api/admin/notifications/stream',
        'GET /api/admin/open-uploads',
        'GET /api/admin/open-uploads/{id}',
        'GET /api/notifications/stream',
        'GET /api/payments/sandbox/{id}',
        'POST /api/admin/admins',
        'POST /api/admin/admins/{id}/disable',
        'POST /api/admin/admins/{id}/enable',
        'POST /api/admin/admins/{id}/password',
        'POST /api/admin/me/password',
        'POST /api/admin/money-check',
        'POST /api/admin/audit-logs/verify',
        'POST /api/admin/orders/{id}/handoff-records/reveal',
        'GET /api/admin/orders/{id}/handoff-records/reveal-requests',
        'POST /api/admin/orders/{id}/handoff-records/reveal-requests',
        'POST /api/admin/orders/{id}/handoff-records/reveal-requests/{requestId}/approve',
        'PUT /api/admin/admins/{id}/roles',
        'POST /api/notifications/read-all',
        'POST /api/orders/{id}/checkout/reject',
        'POST /api/payments/sandbox/{id}/complete',
        'POST /api/payments/alipay/notify',
        'POST /api/payments/wechatpay/notify',
        'POST /api/payments/wechatpay/transfer-notify',
        'POST /api/payments/wechatpay/refund-notify',
        'GET /api/wallet/withdrawals',
        'POST /api/wallet/withdrawals',
        'POST /api/wallet/withdrawals/{id}/cancel',
        'GET /api/admin/withdrawals',
        'POST /api/admin/withdrawals/{id}/approve',
        'POST /api/admin/withdrawals/{id}/reject',
        'POST /api/admin/withdrawals/{id}/resolve',
        'GET /api/wallet/refunds',
        'POST /api/wallet/refunds',
        'GET /api/admin/refunds',
        'POST /api/admin/refunds',
        'POST /api/admin/refunds/{id}/approve',
        'POST /api/admin/refunds/{id}/reject',
        'POST /api/payments/sandbox/refunds/{id}/complete',
        'POST /api/admin/reconciliations',
        'GET /api/admin/reconciliations',
        'GET /api/admin/reconciliations/{id}',
        'POST /api/orders/{id}/renew',
        'POST /api/seller/blocks/{user_id}',
        'DELETE /api/seller/blocks/{user_id}',
        'GET /api/seller/blocks',
        'GET /api/admin/renters/{id}/standing',
        'POST /api/orders/{id}/rating',
        'GET /api/orders/{id}/ratings',
        'GET /api/admin/orders/{id}/ratings',
        'POST /api/admin/orders/{id}/ratings/{ratingId}/hide-comment',
        'POST /api/listings/{id}/rotation-confirmed',
      ].sort(),
    );
    expect(new Set(declared).size).toBe(declared.length);
  });

  it('have unique ids', () => {
    const ids = allRoutes.map((r) => r.id);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it.each(allRoutes.map((r) => [routeName(r), r] as const))('%s belongs to the service that owns its path', (_, r) => {
    expect(r.service).toBe(ownerOf(r.path));
  });

  it('declare exactly the path parameters their path has', () => {
    for (const r of allRoutes) {
      const inPath = [...r.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();
      const declared = r.params ? Object.keys(r.params.shape).sort() : [];
      expect({ route: routeName(r), params: declared }).toEqual({ route: routeName(r), params: inPath });
    }
  });

  it('protect every back-office path but captcha and login with the admin login', () => {
    const publicAdmin = ['GET /api/admin/auth/captcha', 'POST /api/admin/auth/login'];
    for (const r of allRoutes.filter((r) => r.path.startsWith('/api/admin/'))) {
      expect({ route: routeName(r), auth: r.auth }).toEqual({
        route: routeName(r),
        auth: publicAdmin.includes(routeName(r)) ? 'public' : 'admin',
      });
    }
  });

  it('list 401 on every authenticated route and 404 on every route addressed by id', () => {
    for (const r of allRoutes) {
      if (r.auth !== 'public') expect({ route: routeName(r), has401: r.errors.includes(401) }).toEqual({ route: routeName(r), has401: true });
      if (r.path.includes('{id}')) expect({ route: routeName(r), has404: r.errors.includes(404) }).toEqual({ route: routeName(r), has404: true });
    }
  });

  it('declare streams only as Server-Sent Events of a signed-in caller: a user’s own, the back office’s', () => {
    const streams = allRoutes.filter((r) => r.stream);
    expect(streams.map(routeName)).toEqual(['GET /api/notifications/stream', 'GET /api/admin/notifications/stream']);
    for (const r of streams) expect(r.success.contentType).toBe('text/event-stream');
    expect(streams.map((r) => r.auth)).toEqual(['user', 'admin']);
  });

  it.each(jsonBodyRoutes.map((r) => [routeName(r), r] as const))('%s rejects an unknown body field', (_, r) => {
    const result = (r.body as z.ZodType).safeParse({ __unknown: 1 });
    expect(result.success).toBe(false);
    expect(result.error?.issues.some((i) => i.code === 'unrecognized_keys')).toBe(true);
  });

  it('use strict objects at every level of every JSON body', () => {
    const loose = jsonBodyRoutes.flatMap((r) => looseObjects(r.body as z.ZodType, routeName(r)));
    expect(loose).toEqual([]);
  });
});

describe('file addresses', () => {
  it('point at the file read route with the key escaped, so a key never adds path segments or parameters', () => {
    const key = 'handoff/2026/11/0193a1b2-7c3d-7e4f-8a9b-0c1d2e3f4a5b.png';
    expect(fileUrl(key)).toBe('/api/files/object?key=handoff%2F2026%2F11%2F0193a1b2-7c3d-7e4f-8a9b-0c1d2e3f4a5b.png');
    expect(new URLSearchParams(fileUrl('a&b=c#d').split('?')[1]).get('key')).toBe('a&b=c#d');
  });
});

describe('the paygate callback body', () => {
  const valid = { payment_id: 'p', gateway_txn_id: 't', amount: 100, status: 'succeeded', paid_at: '2026-11-22T09:00:00Z' };

  it('ignores unknown fields (docs/rules.md §5), so a gateway adding one does not stop crediting', () => {
    expect(PaygateNotifyBody.parse({ ...valid, fee: 1, extra: { a: 1 } })).toEqual(valid);
  });

  it('takes paid_at with any offset, or none for a failed payment', () => {
    expect(PaygateNotifyBody.safeParse({ ...valid, paid_at: '2026-11-22T17:00:00+08:00' }).success).toBe(true);
    expect(PaygateNotifyBody.safeParse({ ...valid, status: 'failed', paid_at: null }).success).toBe(true);
    expect(PaygateNotifyBody.safeParse({ ...valid, paid_at: 'yesterday' }).success).toBe(false);
  });
});

describe('listing bodies', () => {
  const valid = { title: 'account', game: 'game', hourly_price: 800, deposit: 5000 };

  it('default min_hours to 1 on create', () => {
    expect(CreateListingBody.parse(valid).min_hours).toBe(1);
  });

  it('refuse max_hours below min_hours', () => {
    expect(CreateListingBody.safeParse({ ...valid, min_hours: 5, max_hours: 2 }).success).toBe(false);
    expect(UpdateListingBody.safeParse({ min_hours: 5, max_hours: 2 }).success).toBe(false);
  });

  it('refuse money that is not integer fen', () => {
    expect(CreateListingBody.safeParse({ ...valid, hourly_price: 8.5 }).success).toBe(false);
    expect(CreateListingBody.safeParse({ ...valid, hourly_price: 0 }).success).toBe(false);
  });

  it('update only what a PUT sends and refuse an empty one', () => {
    expect(UpdateListingBody.parse({ title: 'new' })).toEqual({ title: 'new' });
    expect(UpdateListingBody.safeParse({}).success).toBe(false);
  });
});

describe('open upload body', () => {
  const account = { title: 't', game: 'g', hourly_price: 600, deposit: 0, account: 'a', password: 'p' };
  const body = (data: unknown) => ({ uploadTime: '2026-11-22 17:00:00', uploaderName: 'cs_alice', data });

  it('takes one account object or an array of 1 to 20', () => {
    expect(OpenUploadBody.safeParse(body(account)).success).toBe(true);
    expect(OpenUploadBody.safeParse(body(Array(20).fill(account))).success).toBe(true);
    expect(OpenUploadBody.safeParse(body(Array(21).fill(account))).success).toBe(false);
    expect(OpenUploadBody.safeParse(body([])).success).toBe(false);
  });

  it('takes an ISO or a "YYYY-MM-DD HH:mm:ss" upload time', () => {
    expect(OpenUploadBody.safeParse({ ...body(account), uploadTime: '2026-11-22T09:00:00Z' }).success).toBe(true);
    expect(OpenUploadBody.safeParse({ ...body(account), uploadTime: 'yesterday' }).success).toBe(false);
  });

  it('documents an account example that its own schema accepts', () => {
    expect(OpenUploadAccount.safeParse(OPEN_UPLOAD_ACCOUNT_EXAMPLE).success).toBe(true);
    expect(OpenUploadAccount.safeParse(account).success).toBe(true);
    expect(OpenUploadAccount.safeParse({ ...account, min_hours: 3, max_hours: 2 }).success).toBe(false);
  });
});

describe('arbitration body', () => {
  it('refuses a breakdown with mark_abnormal', () => {
    const breakdown = { consumption: 100, deposit_deduction: 0 };
    expect(ArbitrateBody.safeParse({ result: 'close', note: 'n', breakdown }).success).toBe(true);
    expect(ArbitrateBody.safeParse({ result: 'mark_abnormal', note: 'n', breakdown }).success).toBe(false);
  });
});

describe('event contracts', () => {
  it('give every event type named in docs/rules.md §8 a data schema', () => {
    expect(specifiedEvents.length).toBeGreaterThanOrEqual(22);
    expect(specifiedEvents.filter((t) => !(t in eventDataSchemas))).toEqual([]);
  });
});

describe('internal route contracts', () => {
  it('have unique ids and unique method+path per service, never under /api', () => {
    const ids = allInternalRoutes.map((r) => r.id);
    expect(new Set(ids).size).toBe(ids.length);
    const keys = allInternalRoutes.map((r) => `${r.service} ${r.method} ${r.path}`);
    expect(new Set(keys).size).toBe(keys.length);
    for (const r of allInternalRoutes) {
      expect(r.path.startsWith('/')).toBe(true);
      expect(r.path.startsWith('/api')).toBe(false);
      const named = [...r.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
      expect(Object.keys(r.params?.shape ?? {})).toEqual(named);
    }
  });
});

describe('configuration changes, newest wins', () => {
  const at = (s: string) => `2026-11-27T10:00:0${s}.000Z`;

  it('keeps the later change whatever order the copies arrive in, and settles equal times the same way everywhere', () => {
    expect(supersedesConfig({ value: 300, updated_at: at('1') }, { value: 700, updated_at: at('2') })).toBe(false);
    expect(supersedesConfig({ value: 700, updated_at: at('2') }, { value: 300, updated_at: at('1') })).toBe(true);
    expect(supersedesConfig({ value: 700, updated_at: at('2') }, null)).toBe(true);
    // a copy stored without a time gives way; a value admin never changed gives way to any change
    expect(supersedesConfig({ value: 300, updated_at: null }, { value: 700, updated_at: null })).toBe(true);
    expect(supersedesConfig({ value: 300, updated_at: null }, { value: 700, updated_at: at('1') })).toBe(false);
    // equal times: never the same value again, and of two values the same one whichever came first
    expect(supersedesConfig({ value: 700, updated_at: at('2') }, { value: 700, updated_at: at('2') })).toBe(false);
    const [a, b] = [{ value: 300, updated_at: at('2') }, { value: 700, updated_at: at('2') }];
    expect([supersedesConfig(a, b), supersedesConfig(b, a)]).toEqual([false, true]);
  });
});
