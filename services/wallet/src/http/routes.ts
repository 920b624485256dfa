import { randomBytes } from 'node:crypto';
import {
  adminListLedger,
  completeSandboxPayment,
  getWalletBalance,
  listWalletLedger,
  paygateNotify,
  queryRecharge as queryRechargeRoute,
  sandboxPaymentPage,
  startRecharge as startRechargeRoute,
} from '@market/contracts';
import { problems, route, type RouteBinding } from '@market/shared/http';
import type { WalletDeps } from '../application/deps';
import { anyLedger, ownLedger, readBalance } from '../application/read-wallet';
import { receivePaygateNotification } from '../application/receive-paygate-notification';
import { queryRecharge, startRecharge } from '../application/recharge';

function sandboxOf(deps: WalletDeps) {
  if (!deps.sandbox) throw problems.notFound('the sandbox payment gateway is not enabled');
  return deps.sandbox;
}

export function walletRouteBindings(deps: WalletDeps): RouteBinding[] {
  return [
    route(getWalletBalance, ({ identity }) => readBalance(deps, identity)),
    route(listWalletLedger, ({ identity, query }) => ownLedger(deps, identity, query)),
    route(startRechargeRoute, ({ identity, body }) => startRecharge(deps, identity, body)),
    route(queryRechargeRoute, ({ identity, params }) => queryRecharge(deps, identity, params.id)),
    route(paygateNotify, async ({ rawBody, req, identity }) =>
      receivePaygateNotification(deps, await rawBody(), req.header('paygate-signature'), identity),
    ),
    route(sandboxPaymentPage, async ({ params, res }) => {
      const nonce = randomBytes(16).toString('base64');
      const html = await sandboxOf(deps).page(params.id, nonce);
      res
        .status(200)
        .set({
          'content-type': 'text/html; charset=utf-8',
          'content-security-policy': `default-src 'none'; script-src 'nonce-${nonce}'; connect-src 'self'; style-src 'unsafe-inline'`,
          'x-content-type-options': 'nosniff',
          'cache-control': 'no-store',
        })
        .send(html);
    }),
    route(completeSandboxPayment, ({ params, body }) => sandboxOf(deps).complete(params.id, body.status)),
    route(adminListLedger, ({ query }) => anyLedger(deps, query)),
  ];
}
