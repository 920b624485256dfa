import path from 'node:path';
import { randomInt } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { eventually, type AlipaySimulator, type Stack } from '@market/testkit';
import { createMarketClient, ok, type MarketClient } from '@market/sdk';
import { ADMIN, consoleInBrowser, SHOTS } from './console-session';

/** Roles, the Admins page, the Money page and the keyboard, in the browser, signed in as the bootstrap admin. */
describe('the console in a browser: admins, money and the keyboard', () => {
  const { session, user, shot, open, signIn, tabTo, unnamedControls } = consoleInBrowser();
  let stack: Stack;
  let browser: Browser;
  let page: Page;
  let back: MarketClient;
  let alipay: AlipaySimulator;
  beforeAll(async () => {
    ({ stack, browser, page, back, alipay } = session());
    await signIn(page, ADMIN);
  }, 60_000);

  it('shows a reviewer only what the reviewer role may use', async () => {
    const reviewer = { username: `reviewer_${randomInt(0, 1_000_000)}`, password: 'reviewer-password-1234' };
    const created = await ok(back.api.POST('/api/admin/admins', { body: { ...reviewer, nickname: '审核员', roles: ['reviewer'] } }));
    expect(created.roles).toEqual(['reviewer']);
    const owner = await user();
    const listing = await ok(owner.market.api.POST('/api/listings', { body: { title: '审核员测试 和平精英', game: '和平精英', hourly_price: 600, deposit: 3000, min_hours: 1 } }));
    await ok(owner.market.api.POST('/api/listings/{id}/submit-review', { params: { path: { id: listing.id } }, body: {} }));

    const context = await browser.newContext({ viewport: { width: 1360, height: 900 }, locale: 'zh-CN' });
    const as = await context.newPage();
    try {
      await signIn(as, reviewer);
      const menu = as.getByRole('menu');
      for (const name of ['概览', '商品审核', '开放上传记录']) await menu.getByRole('menuitem', { name }).waitFor();
      for (const name of ['用户', '订单', '纠纷', '资金', '系统配置', '审计日志', '管理员']) expect(await menu.getByRole('menuitem', { name }).count()).toBe(0);
      // the dashboard's open-disputes figure is no link for an admin who may not read disputes
      expect(await as.getByRole('link', { name: /待审核商品/ }).count()).toBe(1);
      expect(await as.getByRole('link', { name: /纠纷/ }).count()).toBe(0);
      await as.screenshot({ path: path.join(SHOTS, 'reviewer-dashboard.png'), fullPage: true });

      // a reviewer reviews: the approve and reject buttons are there, the owner is no link to the users page
      await as.goto(`${stack.url}/admin/listings/${listing.id}`);
      await as.getByRole('heading', { name: listing.title }).waitFor();
      await as.getByRole('button', { name: '通 过' }).or(as.getByRole('button', { name: '通过' })).waitFor();
      expect(await as.getByRole('link', { name: listing.owner_id }).count()).toBe(0);
      await as.getByRole('button', { name: '通 过' }).or(as.getByRole('button', { name: '通过' })).click();
      await as.getByText('操作成功').waitFor();
      expect(await ok(back.api.GET('/api/admin/listings/{id}', { params: { path: { id: listing.id } } }))).toMatchObject({ review_status: 'approved' });

      // roles given during the session show at the next page load
      await ok(back.api.PUT('/api/admin/admins/{id}/roles', { params: { path: { id: created.id } }, body: { roles: ['reviewer', 'finance'] } }));
      await as.reload();
      await as.getByRole('menu').getByRole('menuitem', { name: '资金' }).waitFor();
      expect(await as.getByRole('menu').getByRole('menuitem', { name: '用户' }).count()).toBe(0);
    } finally {
      await context.close();
    }
  });

  it('creates an admin through the dialog, refuses a taken username with the problem, on the Admins page', async () => {
    const fresh = `ops_${randomInt(0, 1_000_000)}`;
    await open('/admins', '管理员');
    const create = async () => {
      await page.getByRole('button', { name: '新建管理员' }).click();
      const dialog = page.getByRole('dialog', { name: '新建管理员' });
      await dialog.getByLabel('用户名').fill(fresh);
      await dialog.getByLabel('昵称').fill('新运营');
      await dialog.getByLabel('初始密码').fill('new-operator-password-1');
      await dialog.getByRole('button', { name: '确 定' }).or(dialog.getByRole('button', { name: '确定' })).click();
      return dialog;
    };
    await (await create()).waitFor({ state: 'hidden' });
    // the list is read again after the creation
    await page.getByRole('cell', { name: fresh, exact: true }).waitFor();
    const admins = await ok(back.api.GET('/api/admin/admins', { params: { query: { limit: 100 } } }));
    expect(admins.items.find((a) => a.username === fresh)).toMatchObject({ nickname: '新运营', status: 'active' });
    const again = await create();
    await again.getByRole('alert').getByText(/· 409$/).waitFor();
    expect(await again.getByRole('alert').textContent()).toContain('already taken');
    await again.getByRole('button', { name: '取 消' }).or(again.getByRole('button', { name: '取消' })).click();
    await again.waitFor({ state: 'hidden' });
  });

  it('lets the super admin change an admin’s roles on the Admins page', async () => {
    const username = `cs_${randomInt(0, 1_000_000)}`;
    await ok(back.api.POST('/api/admin/admins', { body: { username, nickname: '客服', password: 'customer-service-1234', roles: ['reviewer'] } }));
    await open('/admins', '管理员');
    await page.getByRole('button', { name: `修改角色 ${username}` }).click();
    const dialog = page.getByRole('dialog');
    // A click while the dialog still zooms in can land beside its target on a loaded machine (CI lost
    // one each way): wait until antd's opening motion classes are gone before clicking.
    await page.waitForFunction(() => !document.querySelector('.ant-modal-root [class*="-appear"], .ant-modal-root [class*="-enter"]'));
    await dialog.getByText('审核员', { exact: true }).click();
    await dialog.getByText('客服', { exact: true }).click();
    // the boxes show a click once React has rendered it, which on a busy machine is not at once
    await eventually(
      async () => [await dialog.getByLabel('审核员').isChecked(), await dialog.getByLabel('客服').isChecked()],
      ([reviewer, support]) => !reviewer && support,
      5000,
    );
    await shot('admin-roles');
    await dialog.getByRole('button', { name: '保 存' }).or(dialog.getByRole('button', { name: '保存' })).click();
    await dialog.waitFor({ state: 'hidden' });
    const admins = await ok(back.api.GET('/api/admin/admins', { params: { query: { limit: 100 } } }));
    expect(admins.items.find((a) => a.username === username)?.roles).toEqual(['customer_service']);
    // nobody edits their own roles: the signed-in super admin's row has no such button
    expect(await page.getByRole('button', { name: `修改角色 ${ADMIN.username}` }).count()).toBe(0);
  });

  it('resets an admin’s password on the Admins page, ending that admin’s sessions', async () => {
    const username = `forgot_${randomInt(0, 1_000_000)}`;
    const created = await ok(back.api.POST('/api/admin/admins', { body: { username, nickname: '忘记密码', password: 'the-old-password-1234', roles: ['reviewer'] } }));
    const theirs = createMarketClient({ baseUrl: stack.url, realm: 'admin' });
    const captcha = await ok(theirs.api.GET('/api/admin/auth/captcha'));
    const login = await ok(
      theirs.api.POST('/api/admin/auth/login', { body: { username, password: 'the-old-password-1234', captcha_id: captcha.captcha_id, captcha_code: captcha.dev_text! } }),
    );
    theirs.signIn({ accessToken: login.access_token });

    await open('/admins', '管理员');
    await page.getByRole('button', { name: `重置密码 ${username}` }).click();
    const dialog = page.getByRole('dialog', { name: `重置密码 ${username}` });
    await dialog.getByLabel('新密码', { exact: true }).fill('the-new-password-1234');
    await dialog.getByLabel('再次输入新密码').fill('the-new-password-12345');
    await dialog.getByText('两次输入的密码不一致').waitFor();
    await dialog.getByLabel('再次输入新密码').fill('the-new-password-1234');
    await shot('admin-reset-password');
    await dialog.getByRole('button', { name: '保 存' }).or(dialog.getByRole('button', { name: '保存' })).click();
    await dialog.waitFor({ state: 'hidden' });
    await page.getByText('密码已重置').waitFor();

    // their session is over, the new password logs in, and nobody resets their own password here
    expect((await theirs.api.GET('/api/admin/me')).response.status).toBe(401);
    const again = await ok(theirs.api.GET('/api/admin/auth/captcha'));
    const relogin = await theirs.api.POST('/api/admin/auth/login', {
      body: { username, password: 'the-new-password-1234', captcha_id: again.captcha_id, captcha_code: again.dev_text! },
    });
    expect(relogin.response.status).toBe(200);
    expect(relogin.data?.admin.id).toBe(created.id);
    expect(await page.getByRole('button', { name: `重置密码 ${ADMIN.username}` }).count()).toBe(0);
  });

  it('rejects a withdrawal with a reason and approves another on the Money page, then approves a refund and reconciles a day', async () => {
    const { market, user: requester } = await user();
    await ok(market.api.POST('/api/realname/start', { body: { real_name: '张三', id_number: '11010519491231002X' } }));
    const payment = await ok(market.api.POST('/api/wallet/recharge/pay', { body: { amount: 5_000, channel: 'sandbox' } }));
    await ok(market.api.POST('/api/payments/sandbox/{id}/complete', { params: { path: { id: payment.id } }, body: { status: 'succeeded' } }));
    await eventually(() => ok(market.api.GET('/api/wallet/balance')), (b) => b.available === 5_000);
    // the wallet learns the verified name from identity's event
    const withdrawal = await eventually(
      () => market.api.POST('/api/wallet/withdrawals', { body: { amount: 2_000, channel: 'alipay', payee_account: 'owner@example.com', payee_name: '张三' } }),
      (r) => r.response.status === 201,
    );
    expect(withdrawal.data).toMatchObject({ status: 'pending_review' });

    await open(`/money/withdrawals?user_id=${requester.id}`, '资金');
    await page.getByRole('tab', { name: '提现审核' }).waitFor();
    const row = page.getByRole('row').filter({ hasText: '待审核' });
    await row.getByRole('button', { name: '批准提现' }).waitFor();
    await shot('withdrawals');
    await row.getByRole('button', { name: '驳回提现' }).click();
    await page.getByRole('dialog').getByLabel('驳回原因').fill('收款账户与实名不符');
    await page.getByRole('dialog').getByRole('button', { name: '确 定' }).or(page.getByRole('dialog').getByRole('button', { name: '确定' })).click();
    await page.getByRole('row').filter({ hasText: '已驳回' }).getByText('收款账户与实名不符').waitFor();

    const listed = await ok(back.api.GET('/api/admin/withdrawals', { params: { query: { user_id: requester.id } } }));
    expect(listed.items).toEqual([expect.objectContaining({ status: 'rejected', reason: '收款账户与实名不符' })]);
    expect(await ok(market.api.GET('/api/wallet/balance'))).toMatchObject({ available: 5_000 });

    // approved, the transfer goes out to Alipay and the withdrawal is paid
    const second = await ok(market.api.POST('/api/wallet/withdrawals', { body: { amount: 1_500, channel: 'alipay', payee_account: 'owner@example.com', payee_name: '张三' } }));
    await page.reload();
    await page.getByRole('row').filter({ hasText: '待审核' }).getByRole('button', { name: '批准提现' }).click();
    await page.getByText('操作成功').first().waitFor();
    await eventually(
      () => ok(back.api.GET('/api/admin/withdrawals', { params: { query: { user_id: requester.id, status: 'paid' } } })),
      (p) => p.items.some((w) => w.id === second.id),
    );
    expect(await ok(market.api.GET('/api/wallet/balance'))).toMatchObject({ available: 3_500 });

    // a transfer Alipay answers with a system error stays `processing`; finance resolves it as failed on the bill's evidence
    alipay.setTransferMode('refuse', 'SYSTEM_ERROR');
    const stuck = await ok(market.api.POST('/api/wallet/withdrawals', { body: { amount: 1_000, channel: 'alipay', payee_account: 'owner@example.com', payee_name: '张三' } }));
    await ok(back.api.POST('/api/admin/withdrawals/{id}/approve', { params: { path: { id: stuck.id } }, body: {} }));
    await page.reload();
    const processing = page.getByRole('row').filter({ hasText: '打款中' });
    await processing.getByRole('button', { name: '人工确认结果' }).click();
    const resolve = page.getByRole('dialog', { name: '按渠道凭证确认提现结果' });
    await resolve.getByRole('combobox', { name: '结果' }).click();
    await page.locator('.ant-select-item-option').filter({ hasText: '失败' }).click();
    await resolve.getByLabel('渠道转账单号').fill('none');
    await resolve.getByLabel('账单明细（或渠道客服答复）').fill('账单无此 out_biz_no');
    await shot('withdrawal-resolve');
    await resolve.getByRole('button', { name: '确 定' }).or(resolve.getByRole('button', { name: '确定' })).click();
    await resolve.waitFor({ state: 'hidden' });
    alipay.setTransferMode('success');
    await page.getByRole('row').filter({ hasText: '失败' }).waitFor();
    expect(await ok(back.api.GET('/api/admin/withdrawals', { params: { query: { user_id: requester.id, status: 'failed' } } }))).toMatchObject({ items: [{ id: stuck.id }] });
    expect(await ok(market.api.GET('/api/wallet/balance'))).toMatchObject({ available: 3_500 });

    // the money check shows the latest result on opening; the button asks the server for a fresh run
    await page.getByRole('tab', { name: '资金核对' }).click();
    await page.getByText('订单与钱包一致').waitFor();
    const fresh = page.waitForResponse((r) => r.url().endsWith('/api/admin/money-check') && r.request().method() === 'POST');
    await page.getByRole('button', { name: '立即核对' }).click();
    const answer = (await (await fresh).json()) as { checked_at: string; ledger: { checks: number; differences: unknown[] } };
    expect(answer.ledger.differences).toEqual([]);
    await page.getByText(`账本平衡（${answer.ledger.checks} 项规则）`).waitFor();
    // the page shows the fresh run's time, as the browser formats it in its own zone
    const local = await page.evaluate((iso) => {
      const d = new Date(iso);
      const two = (n: number) => String(n).padStart(2, '0');
      return `${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())} ${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())}`;
    }, answer.checked_at);
    await page.getByText(`核对时间 ${local}`).waitFor();
    await page.getByText('订单与钱包一致').waitFor();
    await shot('money-check');
    // the ledger's hash chains are part of the check; their own button runs it anew
    await page.getByText('每个账户的分录哈希链完好').waitFor();
    const rechecked = page.waitForResponse((r) => r.url().endsWith('/api/admin/money-check') && r.request().method() === 'POST');
    await page.getByRole('button', { name: '校验哈希链' }).click();
    expect(((await (await rechecked).json()) as typeof answer).ledger.differences).toEqual([]);
    await page.getByText('每个账户的分录哈希链完好').waitFor();

    // a refund of that recharge, approved on the Refunds tab, holds its amount and goes to the sandbox
    const refund = await ok(market.api.POST('/api/wallet/refunds', { body: { payment_id: payment.id, amount: 1_000 } }));
    await page.getByRole('tab', { name: '退款审核' }).click();
    const requested = page.getByRole('row').filter({ hasText: '待审核' });
    // every code in the operator's language: kind, status and channel
    await requested.getByText('用户申请', { exact: true }).waitFor();
    await requested.getByText('沙箱', { exact: true }).waitFor();
    expect(await requested.getByText('requested', { exact: true }).count()).toBe(0);
    await requested.getByRole('button', { name: '批准退款' }).click();
    const approved = await eventually(
      () => ok(back.api.GET('/api/admin/refunds', { params: { query: { user_id: requester.id } } })),
      // approved, then sent: the sandbox answers `processing` until a tester marks it
      (p) => p.items.some((r) => r.status === 'processing'),
    );
    expect(approved.items).toEqual([expect.objectContaining({ id: refund.id, status: 'processing' })]);
    expect(await ok(market.api.GET('/api/wallet/balance'))).toMatchObject({ available: 2_500 });
    await page.reload();
    await page.getByRole('row').filter({ hasText: '用户申请' }).getByText('退款中', { exact: true }).waitFor();
    await shot('refunds');

    // the sandbox's bill of yesterday, reconciled on demand, is listed
    const yesterday = new Date(Date.now() + 8 * 3_600_000 - 86_400_000).toISOString().slice(0, 10);
    await page.getByRole('tab', { name: '对账' }).click();
    await page.getByRole('button', { name: '立即对账' }).click();
    // antd's select opens by its shown value, its options in a list of their own outside the dialog
    await page.getByRole('dialog').getByTitle('支付宝').click();
    await page.locator('.ant-select-item-option').filter({ hasText: '沙箱' }).click();
    await page.getByRole('dialog').getByRole('button', { name: '确 定' }).or(page.getByRole('dialog').getByRole('button', { name: '确定' })).click();
    const run = page.getByRole('row').filter({ hasText: yesterday }).filter({ hasText: '沙箱' });
    await run.waitFor();
    // the run's status in Chinese, whichever it is
    await run.getByText(/^(一致|有差异)$/).waitFor();
    expect(await run.getByText(/^(clean|findings|sandbox)$/).count()).toBe(0);
    await shot('reconciliation');
  });

  it('takes a keyboard user through login, the menu and an action, every control named', async () => {
    const context = await browser.newContext({ viewport: { width: 1360, height: 900 }, locale: 'zh-CN' });
    const on = await context.newPage();
    try {
      const captcha = on.waitForResponse((r) => r.url().endsWith('/api/admin/auth/captcha'));
      await on.goto(`${stack.url}/admin/`);
      const { dev_text } = (await (await captcha).json()) as { dev_text: string };
      await on.getByLabel('验证码', { exact: true }).waitFor();
      expect(await unnamedControls(on)).toEqual([]);
      // the username field has the focus on arrival; Tab moves through the form, Enter submits it
      await on.keyboard.type(ADMIN.username);
      await tabTo(on, on.getByLabel('密码'));
      await on.keyboard.type(ADMIN.password);
      await tabTo(on, on.getByLabel('验证码', { exact: true }));
      await on.keyboard.type(dev_text);
      await on.keyboard.press('Enter');
      await on.getByRole('heading', { name: '概览' }).waitFor();
      expect(await unnamedControls(on)).toEqual([]);

      await tabTo(on, on.getByRole('menu').getByRole('link', { name: '系统配置' }));
      await on.keyboard.press('Enter');
      await on.getByRole('heading', { name: '系统配置' }).waitFor();
      expect(await unnamedControls(on)).toEqual([]);
      await tabTo(on, on.getByRole('button', { name: '编辑 order.payment_timeout_minutes' }));
      await on.keyboard.press('Enter');
      const dialog = on.getByRole('dialog');
      await tabTo(on, dialog.getByLabel('值'));
      await on.keyboard.press('ControlOrMeta+A');
      await on.keyboard.type('25');
      await tabTo(on, dialog.getByRole('button', { name: '保 存' }).or(dialog.getByRole('button', { name: '保存' })));
      await on.keyboard.press('Enter');
      await dialog.waitFor({ state: 'hidden' });
      const configs = await ok(back.api.GET('/api/admin/system-configs'));
      expect(configs.items.find((c) => c.key === 'order.payment_timeout_minutes')?.value).toBe(25);

      // every other page's controls have a name too
      for (const [route, heading] of [
        ['/listings', '商品审核'],
        ['/users', '用户'],
        ['/orders', '订单'],
        ['/disputes', '纠纷'],
        ['/money', '资金'],
        ['/audit', '审计日志'],
        ['/admins', '管理员'],
        ['/uploads', '开放上传记录'],
      ] as const) {
        await on.goto(`${stack.url}/admin${route}`);
        await on.getByRole('heading', { name: heading }).first().waitFor();
        await on.getByRole('table').first().waitFor();
        expect({ route, unnamed: await unnamedControls(on) }).toEqual({ route, unnamed: [] });
      }

      // the sider's collapse button is named for what it does, and works from the keyboard
      await tabTo(on, on.getByRole('button', { name: '收起菜单' }));
      await on.keyboard.press('Enter');
      const expand = on.getByRole('button', { name: '展开菜单', expanded: false });
      await expand.waitFor();
      expect(await unnamedControls(on)).toEqual([]);
      // once, on a loaded CI machine, the focus was no longer on the toggle here (cause not found): Tab back to it
      if (!(await expand.evaluate((el) => el === document.activeElement || el.contains(document.activeElement)))) await tabTo(on, expand);
      await on.keyboard.press('Enter');
      await on.getByRole('button', { name: '收起菜单', expanded: true }).waitFor();

      // in English too, without a page load, Ant Design's own texts included
      // a mark on the window survives only if the page is not loaded again
      await on.evaluate(() => Object.assign(window, { languageMark: 'kept' }));
      await on.getByRole('button', { name: '切换语言' }).click();
      await on.getByRole('button', { name: 'Collapse menu' }).waitFor();
      expect(await unnamedControls(on)).toEqual([]);
      await on.getByRole('menu').getByRole('link', { name: 'Orders' }).click();
      await on.getByRole('heading', { name: 'Orders' }).first().waitFor();
      expect(await on.getByPlaceholder('Select date').count()).toBe(2);
      expect(await on.evaluate(() => (window as unknown as { languageMark?: string }).languageMark)).toBe('kept');
      // and on a small screen, where the menu is a drawer opened by a button
      await on.setViewportSize({ width: 800, height: 900 });
      await on.getByRole('button', { name: 'Open menu' }).click();
      await on.getByRole('menu').getByRole('link', { name: 'Admins' }).waitFor();
      expect(await unnamedControls(on)).toEqual([]);
    } finally {
      await context.close();
    }
  }, 90_000);
});
