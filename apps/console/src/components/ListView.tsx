import { Button, DatePicker, Empty, Form, Input, Select, Space, Table, Typography, type TableColumnsType } from 'antd';
import dayjs, { type Dayjs } from 'dayjs';
import type { ReactNode } from 'react';
import { label, t } from '../i18n';
import { ProblemAlert } from './ProblemAlert';
import type { BaseRecord } from '@refinedev/core';
import type { CursorTable, FilterField } from './use-cursor-table';

type FormValues = Record<string, string | Dayjs | undefined>;

function control(field: FilterField) {
  if (field.day) return <DatePicker aria-label={field.label} />;
  if (field.options)
    return (
      <Select
        aria-label={field.label}
        allowClear={field.fallback === undefined}
        style={{ width: field.width ?? 160 }}
        options={field.options.map((o) => (typeof o === 'string' ? { value: o, label: field.labels ? label(field.labels, o) : o } : o))}
      />
    );
  // antd's clear button is named only by its icon ("close-circle"): name it for what it clears
  const clearIcon = (
    <span role="img" aria-label={`${t('common.clear')} ${field.label}`}>
      ✕
    </span>
  );
  return <Input allowClear={{ clearIcon }} style={field.width ? { width: field.width } : undefined} />;
}

/** The list's filters as a form; submitting puts them in the URL (days as the instants they start or end). */
function FilterForm({ list }: { list: CursorTable<BaseRecord> }) {
  const initial = Object.fromEntries(list.fields.map((f) => [f.name, f.day && list.filters[f.name] ? dayjs(list.filters[f.name]) : list.filters[f.name]]));
  const submit = (values: FormValues) =>
    list.setFilters(
      Object.fromEntries(
        list.fields.map((f) => {
          const v = values[f.name];
          if (!f.day || !v) return [f.name, v as string | undefined];
          const day = v as Dayjs;
          return [f.name, (f.day === 'start' ? day.startOf('day') : day.endOf('day')).toISOString()];
        }),
      ),
    );
  return (
    <Form layout="inline" style={{ marginBottom: 16, rowGap: 8 }} initialValues={initial} onFinish={submit} key={JSON.stringify(list.filters)}>
      {list.fields.map((f) => (
        <Form.Item key={f.name} label={f.label} name={f.name}>
          {control(f)}
        </Form.Item>
      ))}
      <Space>
        <Button type="primary" htmlType="submit">
          {t('common.search')}
        </Button>
        <Button onClick={() => list.setFilters({})}>{t('common.reset')}</Button>
      </Space>
    </Form>
  );
}

/**
 * A list page: its title, the filter form of its fields, the table with its loading, empty and
 * error states, and cursor paging. Every list of the console is one of these: a resource
 * (`useCursorTable`) plus its columns.
 */
export function ListView<T extends BaseRecord>({
  title,
  list,
  columns,
  rowKey,
  extra,
}: {
  title: string;
  list: CursorTable<T>;
  columns: TableColumnsType<T>;
  rowKey: keyof T & string;
  /** What stands between the title and the filters (a create button, a detail's error). */
  extra?: ReactNode;
}) {
  return (
    <>
      <Typography.Title level={3}>{title}</Typography.Title>
      {extra}
      {list.fields.length ? <FilterForm list={list as unknown as CursorTable<BaseRecord>} /> : null}
      {list.error ? <ProblemAlert error={list.error} onRetry={list.reload} /> : null}
      <Table<T>
        aria-label={title}
        rowKey={rowKey}
        columns={columns}
        dataSource={list.items}
        loading={list.loading}
        pagination={false}
        size="middle"
        scroll={{ x: true }}
        locale={{ emptyText: <Empty description={t('common.empty')} /> }}
      />
      {/* a list that fits one page (the configs, a short queue) has no paging to offer */}
      {list.cursor || list.next ? (
        <Space style={{ marginTop: 16 }}>
          <Button onClick={list.firstPage} disabled={!list.cursor}>
            {t('common.first')}
          </Button>
          <Button onClick={list.nextPage} disabled={!list.next}>
            {t('common.next')}
          </Button>
        </Space>
      ) : null}
    </>
  );
}
