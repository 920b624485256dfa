import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { appendFileSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';
import { SERVICE_NAMES, SERVICE_REGISTRY } from '@market/contracts';

const ROOT = path.resolve(__dirname, '../../..');
const TURBO = path.join(ROOT, 'node_modules/.bin/turbo');

/** The rendered objects of one overlay (Debian's `kubectl` renders Kustomize). */
function render(overlay: string): any[] {
  const text = execFileSync('kubectl', ['kustomize', path.join(ROOT, 'deploy/k8s/overlays', overlay)], { encoding: 'utf8' });
  return parseAllDocuments(text).map((doc) => doc.toJS());
}

const named = (objects: any[], kind: string, name: string) => objects.find((o) => o.kind === kind && o.metadata.name === name);

describe('Kubernetes manifests (deploy/k8s)', () => {
  it('are what the generator writes from the service registry', () => {
    const check = spawnSync(process.execPath, [path.join(ROOT, 'deploy/k8s/generate.mjs'), '--check'], { encoding: 'utf8' });
    expect(check.stderr).toBe('');
    expect(check.status).toBe(0);
  });

  it('render in every overlay and every object passes the Kubernetes schemas', () => {
    const run = spawnSync(process.execPath, [path.join(ROOT, 'deploy/k8s/validate.mjs')], { encoding: 'utf8' });
    const report = JSON.parse(run.stdout) as { objects: Record<string, number>; problems: string[] };
    expect(report.problems).toEqual([]);
    expect(run.status).toBe(0);
    expect(Object.keys(report.objects).sort()).toEqual(readdirSync(path.join(ROOT, 'deploy/k8s/overlays')).map((o) => `overlays/${o}`).sort());
  });

  it('the validator refuses an object the API server would', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'k8s-'));
    try {
      const file = path.join(dir, 'bad.yaml');
      appendFileSync(file, 'apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: { name: x }\nspec: { minAvailable: 1, selector: { matchLabels: 3 } }\n');
      const run = spawnSync(process.execPath, [path.join(ROOT, 'deploy/k8s/validate.mjs'), file], { encoding: 'utf8' });
      expect(run.status).toBe(1);
      expect(JSON.parse(run.stdout).problems.join()).toContain('matchLabels');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it.each(['production', 'development'])('run every service with probes, resources, a disruption budget and its own secrets (%s)', (overlay) => {
    const objects = render(overlay);
    // a generated Secret's name carries kustomize's content hash, and every reference follows it
    const secret = objects.find((o) => o.kind === 'Secret')?.metadata.name ?? 'market-secrets';
    for (const name of [...SERVICE_NAMES, 'gateway']) {
      const deployment = named(objects, 'Deployment', name);
      expect(deployment).toBeDefined();
      const [container] = deployment.spec.template.spec.containers;
      expect(container.image).toMatch(new RegExp(`market/${name}:`));
      expect(container.readinessProbe.httpGet.path).toBe(name === 'gateway' ? '/healthz' : '/readyz');
      expect(container.livenessProbe.httpGet.path).toBe('/healthz');
      expect(container.resources.requests).toEqual(expect.objectContaining({ cpu: expect.any(String), memory: expect.any(String) }));
      expect(container.resources.limits.memory).toBeDefined();
      expect(deployment.spec.template.spec.securityContext.runAsNonRoot).toBe(true);
      expect(container.envFrom).toContainEqual({ secretRef: { name: secret } });
      expect(named(objects, 'PodDisruptionBudget', name)).toBeDefined();
      expect(named(objects, 'Service', name)).toBeDefined();
    }
    for (const s of SERVICE_REGISTRY) {
      const env = named(objects, 'Deployment', s.name).spec.template.spec.containers[0].env;
      expect(env).toContainEqual({ name: 'DB_SCHEMA', value: s.schema });
      expect(env).toContainEqual({ name: 'DATABASE_URL', valueFrom: { secretKeyRef: { name: secret, key: `${s.name.toUpperCase()}_DATABASE_URL` } } });
    }
    expect(objects.filter((o) => o.kind === 'HorizontalPodAutoscaler').map((o) => o.spec.scaleTargetRef.name).sort()).toEqual(['catalog', 'gateway']);
    expect(named(objects, 'Job', 'market-provision').spec.template.spec.containers[0].command).toEqual(['node', 'scripts/provision-db.mjs']);
    for (const external of ['postgres', 'rabbitmq', 'redis']) expect(named(objects, 'Service', external).spec.type).toBe('ExternalName');
  });

  it('keep production secrets out of the repository', () => {
    const objects = render('production');
    expect(objects.filter((o) => o.kind === 'Secret')).toEqual([]);
    expect(named(objects, 'Service', 'postgres').spec.externalName).not.toMatch(/invalid|host\.docker/);
  });
});

describe('images and compose', () => {
  it('docker-compose.yml is valid for docker-compose and runs every service and the gateway', () => {
    // every variable the compose file requires (`${NAME:?…}`), as an operator's .env would set it
    const required = new Set([...readFileSync(path.join(ROOT, 'docker-compose.yml'), 'utf8').matchAll(/\$\{([A-Z0-9_]+):\?/g)].map((m) => m[1]!));
    const secrets = Object.fromEntries([...required].map((key) => [key, `test-${key.toLowerCase()}`]));
    // Debian's docker-compose (no engine needed for `config`)
    const services = execFileSync('docker-compose', ['-f', 'docker-compose.yml', 'config', '--services'], {
      cwd: ROOT,
      env: { PATH: process.env.PATH, ...secrets },
      encoding: 'utf8',
    });
    expect(services.trim().split('\n').sort()).toEqual([...SERVICE_NAMES, 'gateway', 'postgres', 'provision', 'provision-broker', 'provision-redis', 'rabbitmq', 'redis'].sort());
    const missing = spawnSync('docker-compose', ['-f', 'docker-compose.yml', 'config', '-q'], { cwd: ROOT, env: { PATH: process.env.PATH }, encoding: 'utf8' });
    expect(missing.status).not.toBe(0);
    expect(missing.stderr).toContain('Missing mandatory value');
  });

  it('an image holds only its service and the packages it depends on (turbo prune)', () => {
    const out = mkdtempSync(path.join(tmpdir(), 'prune-'));
    try {
      execFileSync(TURBO, ['prune', '@market/orders', '--docker', '--out-dir', out], { cwd: ROOT, stdio: 'ignore' });
      expect(readdirSync(path.join(out, 'full/services'))).toEqual(['orders']);
      expect(readdirSync(path.join(out, 'full/packages')).sort()).toEqual(['contracts', 'shared']);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });

  it("a change to one service's code affects only that service's image; a change to the kit affects every one", () => {
    const clone = mkdtempSync(path.join(tmpdir(), 'affected-'));
    const git = (...args: string[]) => execFileSync('git', ['-c', 'user.email=ci@example.com', '-c', 'user.name=ci', ...args], { cwd: clone, stdio: 'pipe' });
    const affected = () =>
      (JSON.parse(execFileSync(TURBO, ['ls', '--filter=...[HEAD^1]', '--output=json'], { cwd: clone, encoding: 'utf8' })) as { packages: { items: Array<{ name: string }> } }).packages.items
        .map((p) => p.name)
        .sort();
    try {
      execFileSync('git', ['clone', '--quiet', '--shared', ROOT, clone]);
      appendFileSync(path.join(clone, 'services/wallet/src/config.ts'), '\n// touched\n');
      git('commit', '--quiet', '-am', 'wallet only');
      // the images are the services' and the gateway's; test tooling that starts wallet follows it too
      const images = new Set([...SERVICE_NAMES, 'gateway'].map((name) => `@market/${name}`));
      expect(affected().filter((workspace) => images.has(workspace))).toEqual(['@market/wallet']);
      appendFileSync(path.join(clone, 'packages/contracts/src/common.ts'), '\n// touched\n');
      git('commit', '--quiet', '-am', 'contracts');
      expect(affected()).toEqual(expect.arrayContaining(['@market/contracts', '@market/gateway', ...SERVICE_NAMES.map((s) => `@market/${s}`)]));
    } finally {
      rmSync(clone, { recursive: true, force: true });
    }
  });
});
