import { randomBytes } from 'node:crypto';
import type { Request, Response } from 'express';
import { failureKind, NotFound, type FailureKind } from '@market/shared/errors';
import type { Logger } from '@market/shared/logging';
import {
  adminListLedger,
  adminListWithdrawals,
  alipayNotify,
  wechatpayNotify,
  wechatpayRefundNotify,
  wechatpayTransferNotify,
  approveWithdrawal as approveWithdrawalRoute,
  cancelWithdrawal as cancelWithdrawalRoute,
  listWithdrawals,
  rejectWithdrawal as rejectWithdrawalRoute,
  resolveWithdrawal as resolveWithdrawalRoute,
  requestWithdrawal as requestWithdrawalRoute,
  completeSandboxPayment,
  getWalletBalance,
  listWalletLedger,
  paygateNotify,
  queryRecharge as queryRechargeRoute,
  sandboxPaymentPage,
  startRecharge as startRechargeRoute,
  adminListRefunds,
  approveRefund as approveRefundRoute,
  completeSandboxRefund,
  getReconciliation,
  listReconciliations,
  listRefunds,
  rejectRefund as rejectRefundRoute,
  requestRefund as requestRefundRoute,
  runReconciliation,
  startRefund as startRefundRoute,
} from '@market/contracts';
import { route, type RouteBinding } from '@market/shared/http';
import type { WalletDeps } from '../application/deps';
import { anyLedger, ownLedger, readBalance } from '../application/read-wallet';
import { receiveAlipayNotification, type AlipayAck } from '../application/receive-alipay-notification';
import { receivePaygateNotification } from '../application/receive-paygate-notification';
import { receiveWechatPayRefundCallback, receiveWechatPayTransferCallback } from '../application/receive-wechatpay-callback';
import { receiveWechatPayNotification, type WechatAck, type WechatCallbackHeaders } from '../application/receive-wechatpay-notification';
import { queryRecharge, startRecharge } from '../application/recharge';
import { approveWithdrawal, cancelWithdrawal, rejectWithdrawal, resolveWithdrawal } from '../application/decide-withdrawal';
import { anyWithdrawals, ownWithdrawals } from '../application/read-withdrawals';
import { requestWithdrawal } from '../application/request-withdrawal';
import { approveRefund, rejectRefund } from '../application/decide-refund';
import { anyRefunds, ownRefunds } from '../application/read-refunds';
import { listRuns, readRun } from '../application/read-reconciliations';
import { reconcileDay } from '../application/reconcile-day';
import { requestRefund, startRefund } from '../application/request-refund';

function sandboxOf(deps: WalletDeps) {
  if (!deps.sandbox) throw new NotFound('the sandbox payment gateway is not enabled');
  return deps.sandbox;
}

function sandboxRefundsOf(deps: WalletDeps) {
  if (!deps.sandboxRefunds) throw new NotFound('the sandbox payment gateway is not enabled');
  return deps.sandboxRefunds;
}

/**
 * Whether a notification that failed is refused (it fails the same way on every post) or asked for
 * again (a database outage, a lock: it may pass later); the unexpected is logged.
 */
function notificationFailure(log: Logger, provider: string, err: unknown): FailureKind {
  const kind = failureKind(err);
  if (kind === 'transient') log.error({ err: { message: (err as Error).message } }, `${provider} notification could not be applied`);
  return kind;
}

/** Alipay reads exactly `success` or `fail`, never a problem document; what cannot be applied now is `fail` with 503, retried by Alipay. */
async function answerAlipay(res: Response, log: Logger, handle: () => Promise<AlipayAck>) {
  let ack: AlipayAck;
  let status: number;
  try {
    ack = await handle();
    status = ack === 'success' ? 200 : 400;
  } catch (err) {
    ack = 'fail';
    status = notificationFailure(log, 'Alipay', err) === 'permanent' ? 400 : 503;
  }
  res.status(status).type('text/plain').send(ack);
}

/** WeChat Pay reads 2xx as received; anything else, with `{code, message}`, makes it post again later. */
async function answerWechatPay(res: Response, log: Logger, handle: () => Promise<WechatAck>) {
  let ack: WechatAck;
  try {
    ack = await handle();
  } catch (err) {
    ack = notificationFailure(log, 'WeChat Pay', err) === 'permanent' ? 'refused' : 'retry';
  }
  if (ack === 'ok') res.status(204).end();
  else res.status(ack === 'refused' ? 400 : 503).json({ code: 'FAIL', message: ack === 'refused' ? '失败' : '稍后重试' });
}

/** The headers WeChat Pay signs a callback with. */
function wechatHeaders(req: Request): WechatCallbackHeaders {
  return {
    timestamp: req.header('wechatpay-timestamp') ?? '',
    nonce: req.header('wechatpay-nonce') ?? '',
    serial: req.header('wechatpay-serial') ?? '',
    signature: req.header('wechatpay-signature') ?? '',
  };
}

export function walletRouteBindings(deps: WalletDeps): RouteBinding[] {
  return [
    route(getWalletBalance, ({ identity }) => readBalance(deps, identity)),
    route(listWalletLedger, ({ identity, query }) => ownLedger(deps, identity, query)),
    route(startRechargeRoute, ({ identity, body }) => startRecharge(deps, identity, body)),
    route(queryRechargeRoute, ({ identity, params }) => queryRecharge(deps, identity, params.id)),
    route(paygateNotify, async ({ rawBody, req, identity }) => {
      sandboxOf(deps);
      return receivePaygateNotification(deps, await rawBody(), req.header('paygate-signature'), identity);
    }),
    route(alipayNotify, ({ rawBody, res, log }) => {
      if (!deps.alipay) throw new NotFound('the alipay channel is not enabled');
      return answerAlipay(res, log, async () => receiveAlipayNotification(deps, await rawBody()));
    }),
    route(wechatpayNotify, ({ rawBody, req, res, log }) => {
      if (!deps.wechatpay) throw new NotFound('the wechatpay channel is not enabled');
      return answerWechatPay(res, log, async () => receiveWechatPayNotification(deps, wechatHeaders(req), await rawBody()));
    }),
    route(wechatpayTransferNotify, ({ rawBody, req, res, log }) => {
      if (!deps.wechatpay) throw new NotFound('the wechatpay channel is not enabled');
      return answerWechatPay(res, log, async () => receiveWechatPayTransferCallback(deps, wechatHeaders(req), await rawBody()));
    }),
    route(wechatpayRefundNotify, ({ rawBody, req, res, log }) => {
      if (!deps.wechatpay) throw new NotFound('the wechatpay channel is not enabled');
      return answerWechatPay(res, log, async () => receiveWechatPayRefundCallback(deps, wechatHeaders(req), await rawBody()));
    }),
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
    route(requestWithdrawalRoute, ({ identity, body }) => requestWithdrawal(deps, identity, body)),
    route(listWithdrawals, ({ identity, query }) => ownWithdrawals(deps, identity, query)),
    route(cancelWithdrawalRoute, ({ identity, params }) => cancelWithdrawal(deps, identity, params.id)),
    route(adminListWithdrawals, ({ query }) => anyWithdrawals(deps, query)),
    route(approveWithdrawalRoute, ({ identity, params }) => approveWithdrawal(deps, identity, params.id)),
    route(rejectWithdrawalRoute, ({ identity, params, body }) => rejectWithdrawal(deps, identity, params.id, body.reason)),
    route(resolveWithdrawalRoute, ({ identity, params, body }) => resolveWithdrawal(deps, identity, params.id, body)),
    route(requestRefundRoute, ({ identity, body }) => requestRefund(deps, identity, body)),
    route(listRefunds, ({ identity, query }) => ownRefunds(deps, identity, query)),
    route(adminListRefunds, ({ query }) => anyRefunds(deps, query)),
    route(startRefundRoute, ({ identity, body }) => startRefund(deps, identity, body)),
    route(approveRefundRoute, ({ identity, params }) => approveRefund(deps, identity, params.id)),
    route(rejectRefundRoute, ({ identity, params, body }) => rejectRefund(deps, identity, params.id, body.reason)),
    route(completeSandboxRefund, ({ params, body }) => sandboxRefundsOf(deps).complete(params.id, body.status)),
    route(runReconciliation, ({ identity, body }) => reconcileDay(deps, body.provider, body.day, identity)),
    route(listReconciliations, ({ query }) => listRuns(deps, query)),
    route(getReconciliation, ({ params }) => readRun(deps, params.id)),
  ];
}
