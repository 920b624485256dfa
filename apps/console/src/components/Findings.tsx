import { Alert, Table, type TableColumnsType, type TableProps } from 'antd';

/**
 * What a check found (the money check's rules, a hash chain verification): a success line when
 * nothing, else an error line counting the findings and the table of them, named like that line.
 */
export function Findings<T extends object>({
  rows,
  found,
  sound,
  rowKey,
  columns,
}: {
  rows: T[];
  /** What a finding is, counted in the error line and naming the table. */
  found: string;
  /** The success line. */
  sound: string;
  rowKey: TableProps<T>['rowKey'];
  columns: TableColumnsType<T>;
}) {
  return (
    <>
      <Alert type={rows.length ? 'error' : 'success'} message={rows.length ? `${found}: ${rows.length}` : sound} style={{ marginBottom: 16 }} />
      {rows.length ? <Table<T> aria-label={found} rowKey={rowKey} pagination={false} size="small" scroll={{ x: true }} dataSource={rows} columns={columns} /> : null}
    </>
  );
}
