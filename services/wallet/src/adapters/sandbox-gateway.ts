import { randomBytes } from 'node:crypto';
import { isUuid, updateReturning, type Db } from '@market/shared/db';
import { InvalidState, NotFound } from '@market/shared/errors';
import { type Logger } from '@market/shared/logging';
import type { GatewayPayment, PaymentGateway, SandboxPayPage } from '../application/ports';
import { signPaygateBody } from '../domain/paygate-signature';

interface SandboxRow {
  payment_id: string;
  amount: string;
  channel: string;
  status: 'pending' | 'succeeded' | 'failed' | 'closed';
  gateway_txn_id: string;
  expires_at: Date;
  paid_at: Date | null;
}

/** Where a signed callback goes: the wallet's own callback handling, as a real gateway's POST would reach it. */
export type CallbackSink = (raw: Buffer, signature: string) => Promise<unknown>;

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function toGatewayPayment(row: SandboxRow): GatewayPayment {
  return { status: row.status, amount: Number(row.amount), gatewayTxnId: row.gateway_txn_id, paidAt: row.paid_at };
}

/**
 * The development payment gateway: its pay page is part of this system, where a tester marks a
 * payment paid or failed; it then sends a callback signed exactly as docs/rules.md §5 says, and answers
 * queries from its own record of the tester's choice. Production refuses it (adapters/providers.ts).
 */
export class SandboxPaymentGateway implements PaymentGateway, SandboxPayPage {
  readonly provider = 'sandbox' as const;
  private sink: CallbackSink | null = null;

  constructor(
    private readonly db: Db,
    private readonly secret: string,
    private readonly log: Logger,
  ) {}

  /** Set once the wallet's callback handling exists (it needs this gateway itself). */
  deliverCallbacksTo(sink: CallbackSink) {
    this.sink = sink;
  }

  async createPayment(input: { paymentId: string; amount: number; channel: string; expiresAt: Date }) {
    await this.db.query(
      `INSERT INTO sandbox_payments (payment_id, amount, channel, status, gateway_txn_id, expires_at) VALUES ($1, $2, $3, 'pending', $4, $5)`,
      [input.paymentId, input.amount, input.channel, `sbx_${randomBytes(12).toString('hex')}`, input.expiresAt],
    );
    return { payUrl: `/api/payments/sandbox/${input.paymentId}`, qrCode: null };
  }

  async queryPayment(paymentId: string): Promise<GatewayPayment | null> {
    const row = await this.find(paymentId);
    return row ? toGatewayPayment(row) : null;
  }

  async closePayment(paymentId: string): Promise<GatewayPayment | null> {
    await this.db.query(`UPDATE sandbox_payments SET status = 'closed' WHERE payment_id = $1 AND status = 'pending'`, [paymentId]);
    return this.queryPayment(paymentId);
  }

  private async find(paymentId: string): Promise<SandboxRow | null> {
    if (!isUuid(paymentId)) return null;
    const rows: SandboxRow[] = await this.db.query(
      `SELECT payment_id, amount, channel, status, gateway_txn_id, expires_at, paid_at FROM sandbox_payments WHERE payment_id = $1`,
      [paymentId],
    );
    return rows[0] ?? null;
  }

  /** The pay page: the amount and two buttons; `nonce` lets its one inline script past the page's CSP. */
  async page(paymentId: string, nonce: string): Promise<string> {
    const row = await this.find(paymentId);
    if (!row) throw new NotFound('payment not found');
    const yuan = (Number(row.amount) / 100).toFixed(2);
    const open = row.status === 'pending' && row.expires_at > new Date();
    return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Sandbox payment</title>
<meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body style="font-family: sans-serif; max-width: 28rem; margin: 3rem auto">
<h1>Sandbox payment gateway</h1>
<p>For development and testing only: no real money moves.</p>
<p>Payment <code>${escapeHtml(row.payment_id)}</code> via ${escapeHtml(row.channel)}: <strong>¥${yuan}</strong></p>
<p id="status">Status: ${escapeHtml(open ? 'pending' : row.status === 'pending' ? 'expired' : row.status)}</p>
${open ? '<button data-status="succeeded">Mark paid</button> <button data-status="failed">Mark failed</button>' : ''}
<script nonce="${nonce}">
for (const button of document.querySelectorAll('button')) {
  button.addEventListener('click', async () => {
    const res = await fetch(location.pathname.replace(/\\/$/, '') + '/complete', {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ status: button.dataset.status }),
    });
    const body = await res.json();
    document.getElementById('status').textContent = res.ok ? 'Status: ' + body.status : 'Refused: ' + body.detail;
    for (const b of document.querySelectorAll('button')) b.disabled = true;
  });
}
</script></body></html>`;
  }

  /** The tester's choice: recorded once (later queries answer it), then announced by a signed callback. */
  async complete(paymentId: string, status: 'succeeded' | 'failed') {
    const row = await this.db.transaction(async (tx) => {
      const [found]: SandboxRow[] = isUuid(paymentId)
        ? await tx.query(
            `SELECT payment_id, amount, channel, status, gateway_txn_id, expires_at, paid_at FROM sandbox_payments WHERE payment_id = $1 FOR UPDATE`,
            [paymentId],
          )
        : [];
      if (!found) throw new NotFound('payment not found');
      if (found.status !== 'pending' || found.expires_at <= new Date()) {
        throw new InvalidState(`the payment is ${found.status === 'pending' ? 'expired' : found.status}; it can no longer be completed`);
      }
      const [updated] = await updateReturning<SandboxRow>(
        tx,
        `UPDATE sandbox_payments SET status = $2, paid_at = CASE WHEN $2 = 'succeeded' THEN now() END WHERE payment_id = $1
         RETURNING payment_id, amount, channel, status, gateway_txn_id, expires_at, paid_at`,
        [paymentId, status],
      );
      return updated!;
    });
    await this.sendCallback(row);
    return { payment_id: row.payment_id, status };
  }

  private async sendCallback(row: SandboxRow) {
    const raw = Buffer.from(
      JSON.stringify({
        payment_id: row.payment_id,
        gateway_txn_id: row.gateway_txn_id,
        amount: Number(row.amount),
        status: row.status,
        paid_at: row.paid_at ? row.paid_at.toISOString() : null,
      }),
    );
    try {
      await this.sink?.(raw, signPaygateBody(this.secret, raw, Math.floor(Date.now() / 1000)));
    } catch (err) {
      // As with a real gateway, a callback that did not land is made good by a query or the expiry scan.
      this.log.warn({ payment_id: row.payment_id, err: { message: (err as Error).message } }, 'sandbox callback was not accepted');
    }
  }
}
