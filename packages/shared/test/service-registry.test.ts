import { readFileSync } from 'node:fs';
import path from 'node:path';
import { DEFAULT_PORTS, SERVICE_NAMES, GATEWAY_DEFAULT_PORT, SERVICE_REGISTRY } from '@market/contracts';
import { serviceUrlShape } from '../src/config/env';
import { SECRET_VARIABLES } from '../src/testing';

const ROOT = path.resolve(__dirname, '../../..');
const compose = readFileSync(path.join(ROOT, 'docker-compose.yml'), 'utf8');
const dockerfile = readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8');
const configurationPage = readFileSync(path.join(ROOT, 'docs/configuration.md'), 'utf8');

/** Which processes read each secret, from the "used by" column of the configuration table in docs/configuration.md. */
function readersInReadme(variable: string): string[] {
  const row = configurationPage.split('\n').find((line) => line.startsWith(`| \`${variable}\` |`));
  if (!row) throw new Error(`docs/configuration.md has no configuration row for ${variable}`);
  const usedBy = row.split('|')[3]!.split(',').map((s) => s.trim());
  return usedBy.flatMap((reader) => (reader === 'services' ? [...SERVICE_NAMES] : [reader])).filter((r) => r === 'gateway' || (SERVICE_NAMES as string[]).includes(r));
}

/** The variables a container's environment sets, its own and those merged in from `x-service-env`. */
function containerVariables(name: string): Set<string> {
  const own = composeService(name);
  const lines = own.split('\n');
  if (own.includes('<<: *service-env')) {
    const all = compose.split('\n');
    const start = all.findIndex((line) => line.startsWith('x-service-env:'));
    const end = all.findIndex((line, i) => i > start && line.trim() === '');
    lines.push(...all.slice(start + 1, end));
  }
  return new Set(lines.map((line) => /^ {2,6}([A-Z][A-Z0-9_]+): /.exec(line)?.[1]).filter((v): v is string => v !== undefined));
}

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

  it.each([...SERVICE_NAMES, 'gateway'])('give %s exactly the secrets docs/configuration.md says it reads', (name) => {
    const held = SECRET_VARIABLES.filter((secret) => containerVariables(name).has(secret));
    const reads = SECRET_VARIABLES.filter((secret) => readersInReadme(secret).includes(name));
    expect(held).toEqual(reads);
  });

  it('connect every service to RabbitMQ as its own broker user, provisioned by the broker job', () => {
    for (const { name } of SERVICE_REGISTRY) {
      expect(composeService(name)).toContain(`AMQP_URL: amqp://market_${name}:\${${name.toUpperCase()}_AMQP_PASSWORD:?`);
      expect(composeService(name)).not.toContain('guest');
    }
    expect(containerVariables('gateway').has('AMQP_URL')).toBe(false);
    expect(compose).not.toMatch(/amqp:\/\/guest/);
    const passwords = /MARKET_AMQP_PASSWORDS: (.*)/.exec(composeService('provision-broker'))?.[1] ?? '';
    expect(passwords.split(',').map((pair) => pair.split(':')[0])).toEqual(SERVICE_NAMES);
    expect(composeService('provision-broker')).toContain('target: provision-broker,');
    expect(dockerfile).toMatch(/^FROM rabbitmq:\S+ AS provision-broker$/m);
  });

  it('make Redis require a password, and give every client a Redis user of its own from the ACL file (ADR 0054)', () => {
    expect(composeService('redis')).toContain('--requirepass');
    expect(composeService('redis')).toContain('--aclfile /acl/users.acl');
    for (const name of [...SERVICE_NAMES, 'gateway']) {
      expect(composeService(name)).toContain(`REDIS_URL: redis://market_${name}:\${${name.toUpperCase()}_REDIS_PASSWORD:?`);
    }
    expect(compose).not.toContain('REDIS_URL: redis://:${REDIS_PASSWORD');
    const passwords = /MARKET_REDIS_PASSWORDS: (.*)/.exec(composeService('provision-redis'))?.[1] ?? '';
    expect(passwords.split(',').map((pair) => pair.split(':')[0])).toEqual([...SERVICE_NAMES, 'gateway']);
  });

  it('start the gateway after every service', () => {
    const dependsOn = /depends_on: \[(.*)\]/.exec(composeService('gateway'))?.[1] ?? '';
    expect(dependsOn.split(',').map((s) => s.trim())).toEqual(SERVICE_NAMES);
  });
});
