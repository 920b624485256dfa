import { useEffect } from 'react';
import { Drawer, type DrawerProps } from 'antd';

/**
 * Ant Design's drawer, closed by Escape also when the focus has fallen out of it: antd listens on
 * the drawer itself, so after an action replaced the button that had the focus (freeze ↔ unfreeze)
 * Escape did nothing. Escape with the focus elsewhere (a dialog over the drawer) is left to that.
 */
export function SideDrawer({ onClose, ...props }: Omit<DrawerProps, 'onClose' | 'open'> & { onClose: () => void }) {
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.key === 'Escape' && !event.defaultPrevented && (document.activeElement === document.body || document.activeElement === null)) onClose();
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [onClose]);
  return <Drawer open keyboard onClose={onClose} {...props} />;
}
