import { attachFiles } from '@market/contracts';
import { eventually, internalClientAs, Market, type MarketCaller as Caller, newAdmin, perSuite, startMarket } from '@market/testkit';

/**
 * Handed-over credentials are for the rental while it runs (ADR 0033): once the order has ended
 * the renter sees that a handoff happened and when, never its content, and the owner still sees
 * what they wrote. The back office sees content only by an audited reveal with a reason, by a role
 * allowed to, for an order in dispute or abnormal.
 */
describe('handoff content, visible while the rental runs', () => {
  /** The market, and the back-office people whose roles the reveal rules turn on. */
  const own = perSuite(
    async () => {
      const stack = await startMarket();
      return {
        stack,
        market: new Market(stack),
        arbitrator: await newAdmin(stack, ['customer_service']),
        reviewer: await newAdmin(stack, ['reviewer', 'finance', 'auditor']),
        colleague: await newAdmin(stack, ['customer_service']),
        third: await newAdmin(stack, ['super_admin']),
      };
    },
    ({ stack }) => stack.stop(),
    60_000,
  );

  async function handedOver(listing: Record<string, unknown> = {}) {
    const owner = await own.market.user();
    const renter = await own.market.fundedUser(10_000);
    const { id: listingId } = await own.market.onlineListing(owner, listing);
    const order = await own.market.order(renter, listingId, 1);
    await own.market.act(order.id, 'pay', renter);
    if (!listing.credentials) await own.market.act(order.id, 'handoff', owner, { content: 'account 7001 / password marlin' });
    await own.market.act(order.id, 'handoff', renter, { content: 'got in, changed nothing' });
    return { owner, renter, orderId: order.id as string };
  }
  const records = async (orderId: string, who: Caller) => {
    const res = await own.market.client.get(`/api/orders/${orderId}/handoff-records`, who.token);
    expect(res.status).toBe(200);
    return res.body.items as Array<{ author_role: string; content: string | null; withheld: boolean; attachment_urls: string[]; created_at: string }>;
  };
  const close = async (orderId: string) => {
    const res = await own.market.client.post(`/api/admin/orders/${orderId}/close`, { reason: 'returned to its owner' }, own.arbitrator.token);
    expect(res.status).toBe(200);
  };
  const auditsOf = async (orderId: string, action: string) =>
    (await own.stack.services.orders!.ctx.db.query(`SELECT payload FROM outbox WHERE type = 'audit.recorded'`))
      .map((r: any) => r.payload.data)
      .filter((d: any) => d.action === action && d.biz_id === orderId);

  it('the renter reads the credentials while the order runs, and only that a handoff happened once it has ended', async () => {
    const { owner, renter, orderId } = await handedOver();
    expect((await records(orderId, renter)).map((r) => [r.author_role, r.content, r.withheld])).toEqual([
      ['owner', 'account 7001 / password marlin', false],
      ['renter', 'got in, changed nothing', false],
    ]);
    await close(orderId);

    const forRenter = await records(orderId, renter);
    expect(forRenter.map((r) => [r.author_role, r.content, r.withheld])).toEqual([
      ['owner', null, true],
      ['renter', 'got in, changed nothing', false],
    ]);
    expect(forRenter[0]!.created_at).toEqual(expect.any(String));
    expect(JSON.stringify(forRenter)).not.toContain('marlin');
    const forOwner = await records(orderId, owner);
    expect(forOwner.map((r) => [r.author_role, r.content, r.withheld])).toEqual([
      ['owner', 'account 7001 / password marlin', false],
      ['renter', null, true],
    ]);
  });

  it('the handoff’s attachments follow the text: readable by both parties while the rental runs, by the renter no more once it completed', async () => {
    const { stack, market } = own;
    const owner = await market.user();
    const renter = await market.fundedUser(10_000);
    const { id: listingId } = await market.onlineListing(owner);
    const order = await market.order(renter, listingId, 1);
    await market.act(order.id, 'pay', renter);
    const shot = await market.upload(owner, 'handoff');
    const proof = await market.upload(renter, 'handoff');
    await market.act(order.id, 'handoff', owner, { content: 'account 7002 / password perch', attachment_keys: [shot.key] });
    await market.act(order.id, 'handoff', renter, { content: 'my screen', attachment_keys: [proof.key] });
    expect((await market.client.get(shot.url, renter.token)).status).toBe(200);
    expect((await market.client.get(proof.url, owner.token)).status).toBe(200);

    await market.act(order.id, 'confirm-receive', renter);
    await market.act(order.id, 'checkout', renter, { consumption: 800, reason: 'played an hour' });
    expect(await market.act(order.id, 'checkout/confirm', owner)).toMatchObject({ status: 'completed' });

    // files ends the order's grants when it sees order.completed: each party keeps only its own uploads
    const refused = await eventually(() => market.client.get(shot.url, renter.token), (res) => res.status !== 200);
    expect(refused.status).toBe(404);
    expect(refused.headers.get('content-type')).toContain('application/problem+json');
    expect((await market.client.get(proof.url, owner.token)).status).toBe(404);
    expect((await market.client.get(shot.url, owner.token)).status).toBe(200);
    expect((await market.client.get(proof.url, renter.token)).status).toBe(200);
    expect((await records(order.id, renter))[0]).toMatchObject({ author_role: 'owner', content: null, withheld: true });
    // a share arriving after the end (a move that raced it) grants nothing
    const late = await internalClientAs(stack, 'orders').call(attachFiles, {
      body: { keys: [shot.key], biz_type: 'order', biz_id: order.id, reader_ids: [renter.id, owner.id] },
    });
    expect(late).toEqual({ attached: 0 });
    expect((await market.client.get(shot.url, renter.token)).status).toBe(404);
  });

  it('stored credentials handed over automatically follow the same rule', async () => {
    const { owner, renter, orderId } = await handedOver({ credentials: 'QQ 515151 / pw heron' });
    expect((await records(orderId, renter))[0]).toMatchObject({ author_role: 'owner', content: 'QQ 515151 / pw heron', withheld: false });
    await close(orderId);
    expect((await records(orderId, renter))[0]).toMatchObject({ author_role: 'owner', content: null, withheld: true, attachment_urls: [] });
    expect((await records(orderId, owner))[0]).toMatchObject({ content: 'QQ 515151 / pw heron', withheld: false });
  });

  it('the back office lists handoffs without content and reveals an abnormal order’s only with a second admin’s approval, audited', async () => {
    const { market, arbitrator, reviewer, colleague, third } = own;
    const { orderId } = await handedOver();
    const listed = await market.client.get(`/api/admin/orders/${orderId}/handoff-records`, arbitrator.token);
    expect(listed.status).toBe(200);
    expect(listed.body.items.map((r: any) => [r.content, r.withheld])).toEqual([
      [null, true],
      [null, true],
    ]);

    const reveal = (who: Caller, body: unknown) => market.client.post(`/api/admin/orders/${orderId}/handoff-records/reveal`, body, who.token);
    // Running normally: nothing to settle, nothing to reveal.
    const early = await reveal(arbitrator, { reason: 'curious' });
    expect(early.status).toBe(409);
    expect(early.body.code).toBe('INVALID_STATE');
    expect((await reveal(arbitrator, {})).status).toBe(400);
    expect((await reveal(arbitrator, { reason: '' })).status).toBe(400);

    const held = await market.client.post(`/api/admin/orders/${orderId}/mark-abnormal`, { reason: 'owner says the renter locked him out' }, arbitrator.token);
    expect(held.status).toBe(200);
    // A role without handoffs.reveal, however many it holds, is refused at the gateway.
    const refused = await reveal(reviewer, { reason: 'settling the complaint' });
    expect(refused.status).toBe(403);

    // No open dispute: the admin who marked the order abnormal cannot reveal it alone (ADR 0056).
    const alone = await reveal(arbitrator, { reason: 'owner says the renter locked him out' });
    expect(alone.status).toBe(409);
    expect(alone.body.code).toBe('REVEAL_APPROVAL_REQUIRED');
    const requests = `/api/admin/orders/${orderId}/handoff-records/reveal-requests`;
    const asked = await market.client.post(requests, { reason: 'owner says the renter locked him out' }, arbitrator.token);
    expect(asked.status).toBe(201);
    expect(asked.body).toMatchObject({ order_id: orderId, requested_by: arbitrator.id, status: 'pending', approved_by: null });
    const approve = (requestId: string, who: Caller) => market.client.post(`${requests}/${requestId}/approve`, {}, who.token);
    // neither the requester (who also marked it abnormal) approves it, nor does a pending request reveal
    const selfApproval = await approve(asked.body.id, arbitrator);
    expect(selfApproval.status).toBe(403);
    expect(selfApproval.body.code).toBe('REVEAL_APPROVER_INVOLVED');
    expect((await reveal(arbitrator, { reason: 'still waiting', request_id: asked.body.id })).body.code).toBe('REVEAL_APPROVAL_REQUIRED');
    // another admin's request is not the marker's to approve either
    const theirs = await market.client.post(requests, { reason: 'second look' }, colleague.token);
    expect((await approve(theirs.body.id, arbitrator)).body.code).toBe('REVEAL_APPROVER_INVOLVED');

    // two admins approve at once: exactly one wins
    const approvals = await Promise.all([approve(asked.body.id, colleague), approve(asked.body.id, third)]);
    expect(approvals.map((a) => a.status).sort()).toEqual([200, 409]);
    expect(approvals.find((a) => a.status === 200)!.body).toMatchObject({ status: 'approved', approved_by: expect.any(String) });
    // the approval is the requester's alone
    expect((await reveal(colleague, { reason: 'borrowing it', request_id: asked.body.id })).body.code).toBe('REVEAL_APPROVAL_REQUIRED');

    // two reveals with one approval at once: exactly one shows the content, and it is used up
    const reveals = await Promise.all([1, 2].map(() => reveal(arbitrator, { reason: 'owner says the renter locked him out', request_id: asked.body.id })));
    expect(reveals.map((r) => r.status).sort()).toEqual([200, 409]);
    const shown = reveals.find((r) => r.status === 200)!;
    expect(shown.body.items.map((r: any) => [r.content, r.withheld])).toEqual([
      ['account 7001 / password marlin', false],
      ['got in, changed nothing', false],
    ]);
    const listed2 = await market.client.get(requests, colleague.token);
    expect(listed2.body.items.find((r: any) => r.id === asked.body.id)).toMatchObject({ status: 'used', used_at: expect.any(String) });

    const audits = await eventually(() => auditsOf(orderId, 'order.handoff_records.reveal'), (found: any[]) => found.length === 6);
    expect(audits.filter((a: any) => a.result === 'success').map((a: any) => [a.actor_id, a.detail.via, a.detail.request_id])).toEqual([
      [arbitrator.id, 'approved_request', asked.body.id],
    ]);
    expect(audits.filter((a: any) => a.result === 'failure').map((a: any) => a.detail.code ?? 'INVALID_STATE').sort()).toEqual([
      'INVALID_STATE',
      'REVEAL_APPROVAL_REQUIRED',
      'REVEAL_APPROVAL_REQUIRED',
      'REVEAL_APPROVAL_REQUIRED',
      'REVEAL_APPROVAL_REQUIRED',
    ]);
    const approvalAudits = await eventually(() => auditsOf(orderId, 'order.handoff_records.reveal_approve'), (found: any[]) => found.length === 4);
    expect(approvalAudits.filter((a: any) => a.result === 'success')).toHaveLength(1);
    expect(JSON.stringify([...audits, ...approvalAudits])).not.toContain('marlin');
  });

  it('an admin settling an open dispute reveals alone', async () => {
    const { market, arbitrator } = own;
    const { renter, orderId } = await handedOver();
    expect((await market.client.post(`/api/orders/${orderId}/dispute`, { reason: 'the password is wrong' }, renter.token)).status).toBe(201);
    const shown = await market.client.post(`/api/admin/orders/${orderId}/handoff-records/reveal`, { reason: 'checking the password' }, arbitrator.token);
    expect(shown.status).toBe(200);
    expect(shown.body.items[0]).toMatchObject({ content: 'account 7001 / password marlin', withheld: false });
    const audits = await eventually(() => auditsOf(orderId, 'order.handoff_records.reveal'), (found: any[]) => found.length === 1);
    expect(audits[0]).toMatchObject({ result: 'success', detail: { via: 'open_dispute' } });
  });
});
