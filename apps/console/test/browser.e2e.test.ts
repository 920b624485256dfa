import { copyFileSync } from 'node:fs';
import path from 'node:path';
import { randomInt } from 'node:crypto';
import type { Page } from 'playwright-core';
import { eventually, type Stack } from '@market/testkit';
import { createMarketClient, ok, type MarketClient } from '@market/sdk';
import { ADMIN, consoleInBrowser, SHOTS } from './console-session';

/** Listings, users, orders, disputes, configs, ratings and the audit log, in the browser (the admins and money pages: browser-admins-money.e2e.test.ts). */
describe('the console in a browser', () => {
  const { session, user, shot, open, signIn, handedOffOrder, complete } = consoleInBrowser();
  let stack: Stack;
  let page: Page;
  let back: MarketClient;
  beforeAll(() => ({ stack, page, back } = session()));

  it('logs in with the development captcha and shows the dashboard', async () => {
    await signIn(page, ADMIN, 'login');
    await page.getByText('待审核商品').waitFor();
    await shot('dashboard');
  });

  it('opens the review queue on the pending listings, oldest first, and approves one', async () => {
    const owner = await user();
    const listing = await ok(owner.market.api.POST('/api/listings', { body: { title: '浏览器测试 原神 满命', game: '原神', hourly_price: 800, deposit: 5000, min_hours: 1 } }));
    await ok(owner.market.api.POST('/api/listings/{id}/submit-review', { params: { path: { id: listing.id } }, body: {} }));
    const later = await ok(owner.market.api.POST('/api/listings', { body: { title: '浏览器测试 原神 后提交', game: '原神', hourly_price: 900, deposit: 5000, min_hours: 1 } }));
    await ok(owner.market.api.POST('/api/listings/{id}/submit-review', { params: { path: { id: later.id } }, body: {} }));
    await open('/listings', '商品审核');
    // the one waiting longest is on top; the statuses read in Chinese
    const rows = page.getByRole('table').getByRole('row');
    await rows.filter({ hasText: later.title }).waitFor();
    const titles = await rows.allInnerTexts();
    expect(titles.findIndex((r) => r.includes(listing.title))).toBeGreaterThanOrEqual(1);
    expect(titles.findIndex((r) => r.includes(listing.title))).toBeLessThan(titles.findIndex((r) => r.includes(later.title)));
    await rows.filter({ hasText: listing.title }).getByText('待审核', { exact: true }).waitFor();
    await rows.filter({ hasText: listing.title }).getByText('草稿', { exact: true }).waitFor();
    expect(await rows.filter({ hasText: listing.title }).getByText('pending', { exact: true }).count()).toBe(0);
    await page.getByRole('link', { name: listing.title }).click();
    await page.getByRole('heading', { name: listing.title }).waitFor();
    await shot('listing-detail');
    await page.getByRole('button', { name: '通 过' }).or(page.getByRole('button', { name: '通过' })).click();
    await page.getByText('操作成功').waitFor();
    const approved = await ok(back.api.GET('/api/admin/listings/{id}', { params: { path: { id: listing.id } } }));
    expect(approved).toMatchObject({ status: 'online', review_status: 'approved' });
  });

  it('freezes and unfreezes a user with a reason', async () => {
    const someone = await user();
    await open('/users', '用户');
    await shot('users');
    await page.getByRole('button', { name: someone.user.nickname }).click();
    await page.getByRole('button', { name: '冻 结' }).or(page.getByRole('button', { name: '冻结' })).click();
    await page.getByLabel('冻结原因').fill('刷单嫌疑');
    await page.getByRole('button', { name: '确 定' }).or(page.getByRole('button', { name: '确定' })).click();
    await page.getByRole('button', { name: '解 冻' }).or(page.getByRole('button', { name: '解冻' })).waitFor();
    const frozen = await ok(back.api.GET('/api/admin/users', { params: { query: { frozen: 'true' } } }));
    expect(frozen.items.find((u) => u.id === someone.user.id)).toMatchObject({ frozen: true, frozen_reason: '刷单嫌疑' });
    await page.getByRole('button', { name: '解 冻' }).or(page.getByRole('button', { name: '解冻' })).click();
    await page.getByRole('button', { name: '冻 结' }).or(page.getByRole('button', { name: '冻结' })).waitFor();
    const after = await ok(back.api.GET('/api/admin/users', { params: { query: { frozen: 'false' } } }));
    expect(after.items.find((u) => u.id === someone.user.id)).toMatchObject({ frozen: false });
    // Escape closes the drawer, as it closes a dialog
    const drawer = page.locator('.ant-drawer-content-wrapper');
    await drawer.waitFor();
    await page.keyboard.press('Escape');
    await drawer.waitFor({ state: 'hidden' });
    // and brings it back with a click on the user
    await page.getByRole('button', { name: someone.user.nickname }).click();
    await drawer.waitFor();
    await page.keyboard.press('Escape');
    await drawer.waitFor({ state: 'hidden' });
  });

  it('arbitrates a dispute with a breakdown, previewing who gets what', async () => {
    const { renter, order } = await handedOffOrder('纠纷测试 王者荣耀');
    const dispute = await ok(renter.market.api.POST('/api/orders/{id}/dispute', { params: { path: { id: order.id } }, body: { reason: '账号无法登录' } }));

    // the handoff content is withheld until revealed with a reason, which the server audits
    await open(`/orders/${order.id}`, '纠纷测试 王者荣耀');
    const handoff = page.getByRole('table', { name: '交接记录' });
    await handoff.getByText('内容已隐藏').waitFor();
    expect(await handoff.getByText('账号已发站内信').count()).toBe(0);
    await page.getByRole('button', { name: '查看交接内容（将记入审计）' }).click();
    await page.getByRole('dialog').getByLabel('查看原因').fill('核实纠纷中的交付情况');
    await page.getByRole('dialog').getByRole('button', { name: '确 定' }).or(page.getByRole('dialog').getByRole('button', { name: '确定' })).click();
    await handoff.getByText('账号已发站内信').waitFor();
    await shot('handoff-revealed');
    const revealed = await eventually(
      () => ok(back.api.GET('/api/admin/audit-logs', { params: { query: { action: 'order.handoff_records.reveal' } } })),
      (p) => p.items.some((e) => e.biz_id === order.id),
    );
    expect(JSON.stringify(revealed.items.find((e) => e.biz_id === order.id)?.detail)).toContain('核实纠纷中的交付情况');

    await open('/disputes', '纠纷');
    await page.getByRole('button', { name: '仲 裁' }).or(page.getByRole('button', { name: '仲裁' })).first().click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('完成订单').check();
    await dialog.getByLabel('裁决说明').fill('号主未能交付可用账号，按一小时计费');
    await dialog.getByLabel('指定结算金额').check();
    // over the rent: the form refuses as the server would, naming the invariant
    await dialog.getByLabel('消费金额（分）').fill('2500');
    await dialog.getByText('must not exceed the rent paid (2000)').waitFor();
    await dialog.getByLabel('消费金额（分）').fill('1000');
    await dialog.getByLabel('押金扣除（分）').fill('500');
    // 5% commission (the default): fee 50, owner 1000 + 500 − 50, renter 6000 − 1500
    await dialog.getByText('¥14.50').waitFor();
    await dialog.getByText('¥0.50').waitFor();
    await dialog.getByText('¥45.00').waitFor();
    await shot('dispute-arbitration');
    await dialog.getByRole('button', { name: '确 定' }).or(dialog.getByRole('button', { name: '确定' })).click();
    await dialog.waitFor({ state: 'hidden' });

    const detail = await ok(back.api.GET('/api/admin/orders/{id}', { params: { path: { id: order.id } } }));
    expect(detail.status).toBe('completed');
    expect(detail.checkout).toMatchObject({ consumption: 1000, deposit_deduction: 500, platform_fee: 50, owner_income: 1450, refund: 4500 });
    const resolved = await ok(back.api.GET('/api/admin/disputes', { params: { query: { order_id: order.id } } }));
    expect(resolved.items[0]).toMatchObject({ id: dispute.id, status: 'resolved', result: 'complete' });
    await open(`/orders/${order.id}`, '纠纷测试 王者荣耀');
    // people by nickname and masked phone, never by id: the renter above and in the money rows
    const renterName = new RegExp(`^${renter.user.nickname} · \\d{3}\\*{4}\\d{4}$`);
    await page.getByRole('link', { name: renterName }).first().waitFor();
    expect(await page.getByRole('table', { name: '资金' }).getByRole('link', { name: renterName }).count()).toBeGreaterThanOrEqual(2);
    expect(await page.getByText(renter.user.id, { exact: true }).count()).toBe(0);
    await shot('order-detail');
  });

  it('counts a dispute opened and a listing submitted while the console is open in the header badges, live and without a reload', async () => {
    const { renter, order } = await handedOffOrder('徽标测试 王者荣耀');
    await open('/', '概览');
    // the badges follow the back office's stream once it is open
    await page.locator('[role=group][data-live=open]').waitFor();
    const count = async (name: string) => {
      const badge = page.getByRole('link', { name: new RegExp(`^${name}: \\d+$`) });
      await badge.waitFor();
      return Number((await badge.getAttribute('aria-label'))!.split(': ')[1]);
    };
    const [disputes, reviews] = [await count('纠纷队列'), await count('审核队列')];
    const loads: string[] = [];
    page.on('framenavigated', (frame) => frame === page.mainFrame() && loads.push(frame.url()));
    const reads: string[] = [];
    page.on('request', (r) => r.url().endsWith('/api/admin/dashboard') && reads.push(r.url()));

    await ok(renter.market.api.POST('/api/orders/{id}/dispute', { params: { path: { id: order.id } }, body: { reason: '账号被改密' } }));
    // well within the 15 s the fallback poll would take: the stream moved it
    await page.getByRole('link', { name: `纠纷队列: ${disputes + 1}` }).waitFor({ timeout: 5000 });
    // the renter lists an account of their own (no new login: the audit test below reads one page of entries)
    const owner = renter;
    const listing = await ok(owner.market.api.POST('/api/listings', { body: { title: '徽标测试 原神', game: '原神', hourly_price: 500, deposit: 1000, min_hours: 1 } }));
    await ok(owner.market.api.POST('/api/listings/{id}/submit-review', { params: { path: { id: listing.id } }, body: {} }));
    await page.getByRole('link', { name: `审核队列: ${reviews + 1}` }).waitFor({ timeout: 5000 });
    // and down again when the listing leaves the queue (its owner deletes it)
    await ok(owner.market.api.DELETE('/api/listings/{id}', { params: { path: { id: listing.id } } }));
    await page.getByRole('link', { name: `审核队列: ${reviews}` }).waitFor({ timeout: 5000 });
    expect(loads).toEqual([]);
    expect(reads.length).toBeGreaterThanOrEqual(3);
    await shot('live-badge');
  }, 60_000);

  it('edits a config with validation, values shown in their units', async () => {
    await open('/configs', '系统配置');
    const row = (key: string) => page.getByRole('row').filter({ has: page.getByRole('cell', { name: key, exact: true }) });
    await row('withdrawal.daily_limit').getByText('¥50000.00', { exact: true }).waitFor();
    await row('order.dispute_timeout_hours').getByText('72 小时', { exact: true }).waitFor();
    await row('order.handoff_timeout_minutes').getByText('30 分钟', { exact: true }).waitFor();
    await page.getByRole('button', { name: '编辑 order.payment_timeout_minutes' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('值').fill('0');
    await dialog.getByText(/>=\s*1|at least 1|too small/i).waitFor();
    await dialog.getByLabel('值').fill('20');
    await shot('config-edit');
    await dialog.getByRole('button', { name: '保 存' }).or(dialog.getByRole('button', { name: '保存' })).click();
    await dialog.waitFor({ state: 'hidden' });
    const configs = await ok(back.api.GET('/api/admin/system-configs'));
    expect(configs.items.find((c) => c.key === 'order.payment_timeout_minutes')?.value).toBe(20);
  });

  it('shows each action in the audit log, and every other page renders', async () => {
    const actions = ['listing.approve', 'user.freeze', 'user.unfreeze', 'dispute.resolve', 'system_config.update'];
    // each action asked for by name, on the page as through the API: how many entries came after it
    // (a retried test before this one writes more) does not matter
    await eventually(
      () => Promise.all(actions.map((action) => ok(back.api.GET('/api/admin/audit-logs', { params: { query: { action, limit: 1 } } })))),
      (pages) => pages.every((found) => found.items.length > 0),
    );
    for (const action of actions) {
      await open(`/audit?action=${action}`, '审计日志');
      await page.getByRole('table').getByText(action, { exact: true }).first().waitFor();
    }
    await open('/audit', '审计日志');
    await shot('audit');
    // the audit log's hash chains, recomputed on the server: every entry the actions above wrote is intact
    const verified = page.waitForResponse((r) => r.url().endsWith('/api/admin/audit-logs/verify') && r.request().method() === 'POST');
    await page.getByRole('button', { name: '校验哈希链' }).click();
    const chains = (await (await verified).json()) as { chains: number; entries: number; breaks: unknown[] };
    expect(chains.breaks).toEqual([]);
    expect(chains.entries).toBeGreaterThanOrEqual(actions.length);
    await page.getByText(`哈希链完好：${chains.chains} 条链，${chains.entries} 条记录`).waitFor();
    await shot('audit-chains');
    // an entry altered in the database is named, with its chain and what is wrong, until it is put back
    const adminDb = stack.services.admin!.ctx.db;
    const [altered] = await adminDb.query(`SELECT id, producer, detail FROM audit_logs WHERE action = 'user.freeze' LIMIT 1`);
    await adminDb.query(`UPDATE audit_logs SET detail = detail || '{"reason": "rewritten"}' WHERE id = $1`, [altered.id]);
    try {
      await page.getByRole('button', { name: '校验哈希链' }).click();
      const row = page.getByRole('table', { name: '哈希链断裂' }).getByRole('row').filter({ hasText: altered.id });
      await row.getByText('内容被改动').waitFor();
      await row.getByText(altered.producer, { exact: true }).waitFor();
      await shot('audit-chain-broken');
    } finally {
      await adminDb.query(`UPDATE audit_logs SET detail = $2 WHERE id = $1`, [altered.id, JSON.stringify(altered.detail)]);
    }
    await page.getByRole('button', { name: '校验哈希链' }).click();
    await page.getByText(/^哈希链完好：/).waitFor();
    // the orders' date filters are Ant Design's pickers in Chinese
    await open('/orders', '订单');
    await page.getByPlaceholder('请选择日期').first().waitFor();
    expect(await page.getByPlaceholder('请选择日期').count()).toBe(2);
    for (const [route, heading, name] of [
      ['/orders', '订单', 'orders'],
      ['/money', '资金', 'money'],
      ['/admins', '管理员', 'admins'],
      ['/uploads', '开放上传记录', 'uploads'],
    ] as const) {
      await open(route, heading);
      await page.getByRole('table').waitFor();
      await shot(name);
    }
    // the picture in docs/console.md: the dashboard after the actions above
    await open('/', '概览');
    // the statuses by count read in Chinese, never as the API's codes
    await page.getByText(/^待交付: \d+$/).first().waitFor();
    expect(await page.getByText(/^pending_handoff/).count()).toBe(0);
    // the 30-day charts name today's figures as the API gives them, with one bar per day
    const { last_30_days: days } = await ok(back.api.GET('/api/admin/dashboard'));
    const today = days.at(-1)!;
    expect(days).toHaveLength(30);
    expect(today.orders).toBeGreaterThan(0);
    const ordersChart = page.getByRole('img', { name: `近 30 日订单，今日 ${today.orders}`, exact: true });
    await ordersChart.waitFor();
    await page.getByRole('img', { name: `近 30 日 GMV，今日 ¥${(today.gmv! / 100).toFixed(2)}`, exact: true }).waitFor();
    await page.getByRole('img', { name: `近 30 日新增用户，今日 ${today.new_users}`, exact: true }).waitFor();
    expect(await ordersChart.locator('rect').count()).toBe(30);
    expect(await ordersChart.locator('rect title').last().textContent()).toBe(`${today.date}: ${today.orders}`);
    // kept out of git like the other shots; `UPDATE_README_SCREENSHOT=1` refreshes the copy in docs/
    const dashboardShot = path.join(SHOTS, 'readme-dashboard.png');
    await page.screenshot({ path: dashboardShot });
    if (process.env.UPDATE_README_SCREENSHOT) copyFileSync(dashboardShot, path.join(__dirname, '../../../docs/console.png'));
  });

  // after the audit log's test: their orders' audit entries would push its actions off the log's first page
  it('shows a completed order’s two ratings and hides an abusive comment with a reason, the stars still counted', async () => {
    const { renter, owner, order } = await handedOffOrder('评价测试 王者荣耀');
    const on = { params: { path: { id: order.id } }, body: {} };
    await complete(order, renter, owner);
    await ok(renter.market.api.POST('/api/orders/{id}/rating', { ...on, body: { stars: 2, tags: ['slow_handoff'], comment: '号主骂人' } }));
    await ok(owner.market.api.POST('/api/orders/{id}/rating', { ...on, body: { stars: 5, tags: ['careful_user'] } }));

    await open(`/orders/${order.id}`, '评价测试 王者荣耀');
    const ratings = page.getByRole('table', { name: '评价' });
    await ratings.getByText('号主骂人').waitFor();
    await ratings.getByText('交付缓慢').waitFor();
    await ratings.getByText('使用爱惜').waitFor();
    await ratings.getByLabel('2 星').waitFor();
    await ratings.getByRole('button', { name: '隐藏评语（将记入审计）' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('原因').fill('辱骂');
    await dialog.getByRole('button', { name: '确 定' }).or(dialog.getByRole('button', { name: '确定' })).click();
    await ratings.getByText('评语已隐藏').waitFor();
    expect(await ratings.getByRole('button', { name: '隐藏评语（将记入审计）' }).count()).toBe(0);
    await shot('order-ratings');

    const seen = await ok(owner.market.api.GET('/api/orders/{id}/ratings', { params: { path: { id: order.id } } }));
    expect(seen.items.find((r) => r.direction === 'renter_to_owner')).toMatchObject({ stars: 2, comment: null, comment_hidden: true });
    const hidden = await eventually(
      () => ok(back.api.GET('/api/admin/audit-logs', { params: { query: { action: 'order.rating.hide_comment' } } })),
      (p) => p.items.some((e) => e.biz_id === order.id),
    );
    expect(JSON.stringify(hidden.items.find((e) => e.biz_id === order.id)?.detail)).toContain('辱骂');
  });

  it('lists the listings waiting for their owner’s password change, with a filter and a column', async () => {
    const { renter, owner, order, listing } = await handedOffOrder('改密测试 王者荣耀', { require_rotation: true });
    await complete(order, renter, owner);
    await eventually(() => ok(back.api.GET('/api/admin/listings/{id}', { params: { path: { id: listing.id } } })), (l) => l.awaiting_rotation);

    await open('/listings?view=all', '商品审核');
    await page.getByRole('combobox', { name: '改密' }).click();
    await page.locator('.ant-select-item-option').filter({ hasText: '待改密' }).click();
    await page.getByRole('button', { name: '查 询' }).or(page.getByRole('button', { name: '查询' })).click();
    // the filter keeps the page's "全部商品" view
    await page.waitForURL(/view=all.*awaiting_rotation=true|awaiting_rotation=true.*view=all/);
    const row = page.getByRole('row').filter({ hasText: '改密测试 王者荣耀' });
    await row.getByText('待改密', { exact: true }).waitFor();
    await shot('listings-awaiting-rotation');
    await page.getByRole('link', { name: '改密测试 王者荣耀' }).click();
    await page.getByRole('heading', { name: '改密测试 王者荣耀' }).waitFor();
    await page.getByText('每次出租后需改密').waitFor();
    await page.getByText('待改密', { exact: true }).waitFor();
    await page.goBack();

    // the owner confirms the new password: the listing leaves the filtered list
    await ok(owner.market.api.POST('/api/listings/{id}/rotation-confirmed', { params: { path: { id: listing.id } }, body: {} }));
    await page.reload();
    await page.getByRole('table').getByText('暂无数据', { exact: true }).last().waitFor();
    expect(await row.count()).toBe(0);
  });

  // after the audit log's test: this one's entries would push the ones it looks for off its first page
  // after the audit log's test: their own audit entries would push its actions off the log's first page
  it('shows a user’s renter limits and the blocks by and of them in the user drawer', async () => {
    const owner = await user();
    const renter = await user();
    const listing = await ok(owner.market.api.POST('/api/listings', { body: { title: '拉黑测试 王者荣耀', game: '王者荣耀', hourly_price: 1000, deposit: 4000, min_hours: 1 } }));
    await ok(owner.market.api.POST('/api/listings/{id}/submit-review', { params: { path: { id: listing.id } }, body: {} }));
    await ok(back.api.POST('/api/admin/listings/{id}/approve', { params: { path: { id: listing.id } }, body: {} }));
    await ok(renter.market.api.POST('/api/orders', { body: { listing_id: listing.id, hours: 1 } }));
    await ok(owner.market.api.POST('/api/seller/blocks/{user_id}', { params: { path: { user_id: renter.user.id } }, body: {} }));
    await open(`/users?ids=${renter.user.id}`, '用户');
    await page.getByRole('button', { name: renter.user.nickname }).click();
    const drawer = page.locator('.ant-drawer-content-wrapper');
    await drawer.getByText('新租客：受限制').waitFor();
    // one active order of two, one of five today; the owner who blocked them named, never by id
    await drawer.getByText('1 / 2', { exact: true }).waitFor();
    await drawer.getByText('1 / 5', { exact: true }).waitFor();
    await drawer.getByText(new RegExp(`^${owner.user.nickname} · \\d{3}\\*{4}\\d{4}$`)).waitFor();
    await shot('user-renter-standing');
    await page.keyboard.press('Escape');
    await drawer.waitFor({ state: 'hidden' });
  });

  it('shows a renewal on the order’s timeline, with the hours, the rent and the end it moved', async () => {
    const { renter, order } = await handedOffOrder('续租测试 王者荣耀');
    const path = { params: { path: { id: order.id } } };
    await ok(renter.market.api.POST('/api/orders/{id}/confirm-receive', { ...path, body: {} }));
    const renewed = await ok(renter.market.api.POST('/api/orders/{id}/renew', { ...path, body: { hours: 1 } }));
    expect(renewed).toMatchObject({ hours: 3, rent: 3000, amount: 7000 });
    await open(`/orders/${order.id}`, '续租测试 王者荣耀');
    await page.getByText(/续租: \+1 h, ¥10\.00 → \d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}/).waitFor();
    await shot('order-renewed');
  });

  it('shows the overtime a checkout past the grace charged in the order’s breakdown (ADR 0071)', async () => {
    const { renter, order } = await handedOffOrder('超时测试 王者荣耀');
    const path = { params: { path: { id: order.id } } };
    await ok(renter.market.api.POST('/api/orders/{id}/confirm-receive', { ...path, body: {} }));
    // the two hours ran out 20½ minutes ago (moved back in the order's row): 21 started minutes, 5 free,
    // 16 × 1000 / 60 = 266 fen from the deposit
    await stack.services.orders!.ctx.db.query(
      `UPDATE orders SET started_at = now() - interval '2 hours 20 minutes 30 seconds', ends_at = now() - interval '20 minutes 30 seconds' WHERE id = $1`,
      [order.id],
    );
    const checkedOut = await ok(renter.market.api.POST('/api/orders/{id}/checkout', { ...path, body: {} }));
    expect(checkedOut.checkout).toMatchObject({ consumption: 2000, overtime_minutes: 16, overtime_fee: 266, deposit_deduction: 0, refund: 3734 });
    await open(`/orders/${order.id}`, '超时测试 王者荣耀');
    await page.getByText(/超时 16 分钟 ¥2\.66/).waitFor();
    await shot('order-overtime');
  });

  it('asks a second admin’s approval to reveal the handoff of an abnormal order without a dispute', async () => {
    const { order } = await handedOffOrder('异常测试 王者荣耀');
    await ok(back.api.POST('/api/admin/orders/{id}/mark-abnormal', { params: { path: { id: order.id } }, body: { reason: '疑似账号被盗' } }));
    await open(`/orders/${order.id}`, '异常测试 王者荣耀');
    await page.getByText('需另一管理员批准', { exact: true }).waitFor();
    expect(await page.getByRole('button', { name: '查看交接内容（将记入审计）' }).count()).toBe(0);
    await page.getByRole('button', { name: '申请查看交接内容（需另一管理员批准）' }).click();
    await page.getByRole('dialog').getByLabel('查看原因').fill('核实异常订单的交付情况');
    await page.getByRole('dialog').getByRole('button', { name: '确 定' }).or(page.getByRole('dialog').getByRole('button', { name: '确定' })).click();
    // the request waits for another admin: the requester sees it without an approve button
    const requests = page.getByRole('table', { name: '查看申请' });
    await requests.getByText('待批准', { exact: true }).waitFor();
    expect(await requests.getByText('pending', { exact: true }).count()).toBe(0);
    expect(await requests.getByRole('button').count()).toBe(0);
    await shot('reveal-request');
    const path = { params: { path: { id: order.id } } };
    const listed = await ok(back.api.GET('/api/admin/orders/{id}/handoff-records/reveal-requests', path));
    expect(listed.items).toMatchObject([{ status: 'pending', reason: '核实异常订单的交付情况' }]);
    expect(await page.getByRole('table', { name: '交接记录' }).getByText('账号已发站内信').count()).toBe(0);
    // the server holds the same rule: no reveal without the approval, and no approving one's own request
    const direct = await back.api.POST('/api/admin/orders/{id}/handoff-records/reveal', { ...path, body: { reason: '直接查看' } });
    expect([direct.response.status, direct.error?.code]).toEqual([409, 'REVEAL_APPROVAL_REQUIRED']);
    const requestId = listed.items[0]!.id;
    const approvePath = { params: { path: { id: order.id, requestId } }, body: {} };
    const own = await back.api.POST('/api/admin/orders/{id}/handoff-records/reveal-requests/{requestId}/approve', approvePath);
    expect([own.response.status, own.error?.code]).toEqual([403, 'REVEAL_APPROVER_INVOLVED']);

    // a second admin approves; the requester then uses the approval here, once
    const second = { username: `support_${randomInt(0, 1_000_000)}`, password: 'support-password-1234' };
    await ok(back.api.POST('/api/admin/admins', { body: { ...second, nickname: '客服二', roles: ['customer_service'] } }));
    const theirs = createMarketClient({ baseUrl: stack.url, realm: 'admin' });
    const captcha = await ok(theirs.api.GET('/api/admin/auth/captcha'));
    const login = await ok(theirs.api.POST('/api/admin/auth/login', { body: { ...second, captcha_id: captcha.captcha_id, captcha_code: captcha.dev_text! } }));
    theirs.signIn({ accessToken: login.access_token });
    await ok(theirs.api.POST('/api/admin/orders/{id}/handoff-records/reveal-requests/{requestId}/approve', approvePath));
    await page.reload();
    await requests.getByText('已批准', { exact: true }).waitFor();
    await requests.getByRole('button', { name: '查看（已批准）' }).click();
    await page.getByRole('table', { name: '交接记录' }).getByText('账号已发站内信').waitFor();
    expect((await ok(back.api.GET('/api/admin/orders/{id}/handoff-records/reveal-requests', path))).items).toMatchObject([{ id: requestId, status: 'used' }]);
  });
});
