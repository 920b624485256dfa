import { readFileSync } from 'node:fs';
import path from 'node:path';
import { DEFAULT_PORTS, SERVICE_NAMES, GATEWAY_DEFAULT_PORT, SERVICE_REGISTRY } from '@market/contracts';
import { serviceUrlShape } from '../src/config/env';

const ROOT = path.resolve(__dirname, '../../..');
const compose = readFileSync(path.join(ROOT, 'docker-compose.yml'), 'utf8');
const dockerfile = readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8');

/** The lines of one top-level entry under `services:` (two-space indent), up to the next one. */
function composeService(name: string): string {
  const lines = compose.split('\n');
  const start = lines.indexOf(`  ${name}:`);
  if (start < 0) return '';
  const end = lines.findIndex((line, i) => i > start && /^ {0,2}\S/.test(line));
  return lines.slice(start, end < 0 ? undefined : end).join('\n');
}

describe('service registry', () => {
  it('gives every service its own name, port, schema and role', () => {
    for (const key of ['name', 'portOffset', 'schema', 'role'] as const) {
      const values = SERVICE_REGISTRY.map((s) => s[key]);
      expect(new Set(values).size).toBe(values.length);
    }
    expect(SERVICE_REGISTRY.every((s) => s.portOffset > 0)).toBe(true);
  });

  it('is what the kit derives its service lists from', () => {
    expect(SERVICE_NAMES).toEqual(SERVICE_REGISTRY.map((s) => s.name));
    expect(DEFAULT_PORTS).toEqual({
      gateway: GATEWAY_DEFAULT_PORT,
      ...Object.fromEntries(SERVICE_REGISTRY.map((s) => [s.name, GATEWAY_DEFAULT_PORT + s.portOffset])),
    });
    expect(Object.keys(serviceUrlShape).sort()).toEqual(SERVICE_REGISTRY.map((s) => `${s.name.toUpperCase()}_URL`).sort());
  });

  it('the launcher and provisioning scripts read the registry', async () => {
    const provision = await import(path.join(ROOT, 'scripts/lib/provision.mjs'));
    expect(provision.SERVICES).toEqual(SERVICE_NAMES);
    for (const s of SERVICE_REGISTRY) {
      const url = new URL(provision.serviceDatabaseUrl({ adminUrl: 'postgres://postgres@db:5432/postgres', database: 'market', service: s.name, password: 'p' }));
      expect(url.username).toBe(s.role);
    }
  });
});

describe('docker-compose.yml and Dockerfile (compose check)', () => {
  it.each(SERVICE_REGISTRY.map((s) => [s.name, s] as const))('run %s with its own image target, schema and role', (name, s) => {
    const block = composeService(name);
    expect(block).toContain(`args: { SERVICE: ${name} } }`);
    expect(block).toContain(`DB_SCHEMA: ${s.schema}\n`);
    expect(block).toContain(`DATABASE_URL: postgres://${s.role}:`);
    expect(dockerfile).toContain('turbo prune "@market/${SERVICE}" --docker');
  });

  it('tell every service where every other one is, and provision a role password for each', () => {
    for (const { name } of SERVICE_REGISTRY) {
      expect(compose).toContain(`  ${name.toUpperCase()}_URL: http://${name}:8080\n`);
    }
    const passwords = /MARKET_DB_ROLE_PASSWORDS: (.*)/.exec(compose)?.[1] ?? '';
    expect(passwords.split(',').map((pair) => pair.split(':')[0])).toEqual(SERVICE_NAMES);
  });

  it('start the gateway after every service', () => {
    const dependsOn = /depends_on: \[(.*)\]/.exec(composeService('gateway'))?.[1] ?? '';
    expect(dependsOn.split(',').map((s) => s.trim())).toEqual(SERVICE_NAMES);
  });
});
