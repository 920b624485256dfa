import { useLocation, useNavigate } from 'react-router';
import { Tabs } from 'antd';
import { useAllowed } from '../../use-allowed';
import { t } from '../../i18n';

/** The Money page's parts, each its own route so each keeps its own filters and cursor in the URL. */
export function MoneyTabs() {
  const { pathname } = useLocation();
  const navigate = useNavigate();
  const ledger = useAllowed('money');
  const withdrawals = useAllowed('withdrawals');
  const refunds = useAllowed('refunds');
  const items = [
    { key: '/money', label: t('money.ledger'), allowed: ledger },
    { key: '/money/withdrawals', label: t('money.withdrawals'), allowed: withdrawals },
    { key: '/money/refunds', label: t('money.refunds'), allowed: refunds },
    { key: '/money/reconciliations', label: t('money.reconciliation'), allowed: ledger },
    { key: '/money/check', label: t('money.check'), allowed: ledger },
  ].filter((i) => i.allowed);
  // the menu of tabs that do not fit is opened by a button antd names only by its icon ("ellipsis")
  const more = {
    icon: (
      <span role="img" aria-label={t('common.moreTabs')}>
        …
      </span>
    ),
  };
  return <Tabs activeKey={pathname.replace(/\/$/, '')} items={items} more={more} onChange={(key) => navigate(key)} />;
}
