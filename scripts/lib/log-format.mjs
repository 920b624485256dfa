const COLORS = { gateway: 36, identity: 32, catalog: 33, orders: 35, wallet: 34, files: 96, notify: 92, admin: 91 };
const LEVEL_COLORS = { trace: 90, debug: 90, info: 37, warn: 33, error: 31, fatal: 41 };

/** Turns a child's pino line into one readable line; non-JSON output passes through, prefixed. */
export function formatLogLine(name, line, pretty) {
  if (!pretty) return line;
  const tag = `\x1b[${COLORS[name] ?? 37}m${name.padEnd(8)}\x1b[0m`;
  let entry;
  try {
    entry = JSON.parse(line);
  } catch {
    return `${tag} ${line}`;
  }
  const { time, level, msg, service: _service, ...rest } = entry;
  const clock = typeof time === 'string' ? time.slice(11, 23) : '';
  const levelText = `\x1b[${LEVEL_COLORS[level] ?? 37}m${String(level ?? '').padEnd(5)}\x1b[0m`;
  const extra = Object.keys(rest).length ? ` \x1b[90m${JSON.stringify(rest)}\x1b[0m` : '';
  return `${tag} ${clock} ${levelText} ${msg ?? ''}${extra}`;
}
