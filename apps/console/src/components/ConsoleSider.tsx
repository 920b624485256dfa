import { Link } from 'react-router';
import { Button, Drawer, Grid, Layout, Menu, theme } from 'antd';
import { useMenu, usePermissions } from '@refinedev/core';
import type { AdminPermission } from '@market/contracts';
import { ThemedTitle, useThemedLayoutContext, type RefineThemedLayoutSiderProps } from '@refinedev/antd';
import { allows, PERMISSIONS, type Capability } from '../access';
import { t } from '../i18n';

/** A glyph beside a named control: the name says what it does, so assistive technology skips the glyph. */
const Glyph = ({ children }: { children: string }) => <span aria-hidden="true">{children}</span>;

/**
 * The menu of the resources the admin may list, in a sider that collapses. Refine's ThemedSider
 * draws the same but names its collapse button and its small-screen menu button only by their
 * icons ("left", "bars"); here each is named for what it does, in the console's language.
 */
export function ConsoleSider({ Title }: RefineThemedLayoutSiderProps) {
  const { siderCollapsed, setSiderCollapsed, mobileSiderOpen, setMobileSiderOpen } = useThemedLayoutContext();
  const { menuItems, selectedKey } = useMenu();
  const { token } = theme.useToken();
  const breakpoint = Grid.useBreakpoint();
  const small = breakpoint.lg === undefined ? false : !breakpoint.lg;
  // the menu is drawn at once from the permissions the authProvider holds (the same rule as useCan's answers)
  const { data: permissions } = usePermissions<AdminPermission[]>({});
  const RenderTitle = Title ?? ThemedTitle;

  const menu = (
    <Menu
      mode="inline"
      selectedKeys={selectedKey ? [selectedKey] : []}
      style={{ paddingTop: 8, border: 'none' }}
      onClick={() => setMobileSiderOpen(false)}
      items={menuItems
        .filter((item) => item.name in PERMISSIONS && allows(permissions, item.name as Capability))
        .map((item) => ({ key: item.key, label: <Link to={item.list ?? '/'}>{item.label ?? item.name}</Link> }))}
    />
  );
  const title = (collapsed: boolean) => (
    <div style={{ height: 64, display: 'flex', alignItems: 'center', justifyContent: collapsed ? 'center' : 'flex-start', padding: collapsed ? 0 : '0 16px', background: token.colorBgElevated }}>
      <RenderTitle collapsed={collapsed} />
    </div>
  );

  if (small) {
    return (
      <>
        <Drawer open={mobileSiderOpen} onClose={() => setMobileSiderOpen(false)} placement="left" closable={false} width={200} styles={{ body: { padding: 0 } }}>
          {title(false)}
          {menu}
        </Drawer>
        <Button
          size="large"
          aria-label={t('app.openMenu')}
          aria-expanded={mobileSiderOpen}
          onClick={() => setMobileSiderOpen(true)}
          style={{ position: 'fixed', top: 64, zIndex: 999, borderStartStartRadius: 0, borderEndStartRadius: 0 }}
        >
          <Glyph>☰</Glyph>
        </Button>
      </>
    );
  }
  const toggleName = siderCollapsed ? t('app.expandMenu') : t('app.collapseMenu');
  return (
    <Layout.Sider
      collapsible
      collapsed={siderCollapsed}
      collapsedWidth={80}
      breakpoint="lg"
      style={{ backgroundColor: token.colorBgContainer, borderRight: `1px solid ${token.colorBgElevated}` }}
      onCollapse={(collapsed, type) => type === 'clickTrigger' && setSiderCollapsed(collapsed)}
      trigger={
        <Button type="text" aria-label={toggleName} aria-expanded={!siderCollapsed} title={toggleName} style={{ borderRadius: 0, height: '100%', width: '100%', backgroundColor: token.colorBgElevated }}>
          <Glyph>{siderCollapsed ? '»' : '«'}</Glyph>
        </Button>
      }
    >
      {title(siderCollapsed)}
      {menu}
    </Layout.Sider>
  );
}
