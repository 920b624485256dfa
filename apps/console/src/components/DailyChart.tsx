import { Card, Typography } from 'antd';
import { t } from '../i18n';

const WIDTH = 300;
const HEIGHT = 80;

/**
 * One figure over the last days as plain SVG bars: 30 bars need no charting library, which would
 * cost the lazy dashboard chunk far more than this. The accessible name carries today's value;
 * each bar's title its day and value, so a screen reader (and a pointer) can read every day.
 */
export function DailyChart({ title, days, format = String }: { title: string; days: Array<{ date: string; value: number | null }>; format?: (n: number) => string }) {
  const today = days.at(-1)?.value ?? null;
  const missing = today === null;
  const label = `${title}，${t('dashboard.today')} ${missing ? '—' : format(today)}`;
  const max = Math.max(1, ...days.map((d) => d.value ?? 0));
  const step = WIDTH / Math.max(1, days.length);
  return (
    <Card size="small" title={title}>
      <Typography.Text strong>
        {t('dashboard.today')} {missing ? '—' : format(today)}
      </Typography.Text>
      <svg role="img" aria-label={label} viewBox={`0 0 ${WIDTH} ${HEIGHT}`} width="100%" height={HEIGHT} preserveAspectRatio="none">
        <title>{label}</title>
        {days.map((d, i) => {
          const h = d.value === null ? 0 : Math.max(d.value > 0 ? 2 : 0, (d.value / max) * (HEIGHT - 4));
          return (
            <rect key={d.date} x={i * step + 1} y={HEIGHT - h} width={Math.max(1, step - 2)} height={h} fill={i === days.length - 1 ? '#1677ff' : '#91caff'}>
              <title>{`${d.date}: ${d.value === null ? '—' : format(d.value)}`}</title>
            </rect>
          );
        })}
        <line x1={0} x2={WIDTH} y1={HEIGHT - 0.5} y2={HEIGHT - 0.5} stroke="#d9d9d9" />
      </svg>
      <Typography.Text type="secondary" style={{ fontSize: 12, display: 'flex', justifyContent: 'space-between' }}>
        <span>{days[0]?.date}</span>
        <span>{days.at(-1)?.date}</span>
      </Typography.Text>
    </Card>
  );
}
