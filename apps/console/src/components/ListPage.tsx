import { useState, type ReactNode } from 'react';
import type { TableColumnsType } from 'antd';
import type { BaseRecord } from '@refinedev/core';
import type { ResourceName } from '../data/resources';
import { ListView } from './ListView';
import { useCursorTable, type CursorTable, type FilterField } from './use-cursor-table';

/** What a list page's columns, drawer and extra work with: its rows (and their reload), and the drawer's row. */
export interface ListPageState<T extends BaseRecord> {
  list: CursorTable<T>;
  /** Opens the page's drawer on this row, or shows it anew once an action changed it. */
  open: (row: T) => void;
  /** Closes the drawer. */
  close: () => void;
}

/**
 * A list page declared as a resource of `RESOURCE_ROUTES`, its filters and its columns: the rows come
 * through `useCursorTable` (filters and cursor in the URL) and are shown by `ListView`; a page with a
 * drawer names what it shows for the row a column opened (a `SideDrawer`, so Escape closes it).
 */
export function ListPage<T extends BaseRecord>({
  resource,
  title,
  filters = [],
  // every resource but the configs (keyed by `key`) has an `id`
  rowKey = 'id' as keyof T & string,
  extra,
  useColumns,
  drawer,
}: {
  resource: ResourceName;
  title: string;
  filters?: readonly FilterField[];
  rowKey?: keyof T & string;
  /** What stands between the title and the filters (tabs, a create button). */
  extra?: ReactNode | ((page: ListPageState<T>) => ReactNode);
  /**
   * The columns, as a hook called on every render of the page, so it may read what the rows need
   * (their people, their orders, a permission) with hooks of its own.
   */
  useColumns: (page: ListPageState<T>) => TableColumnsType<T>;
  drawer?: (row: T, page: ListPageState<T>) => ReactNode;
}) {
  const list = useCursorTable<T>(resource, filters);
  const [opened, setOpened] = useState<T | null>(null);
  const page: ListPageState<T> = { list, open: setOpened, close: () => setOpened(null) };
  const columns = useColumns(page);
  return (
    <>
      <ListView<T> title={title} list={list} rowKey={rowKey} columns={columns} extra={typeof extra === 'function' ? extra(page) : extra} />
      {opened && drawer ? drawer(opened, page) : null}
    </>
  );
}
