import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { appendFileSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';
import { allInternalRoutes, allRoutes, SERVICE_NAMES, SERVICE_REGISTRY } from '@market/contracts';
import { servicePermissions } from '../src/events/broker-permissions';
import { DEFAULT_EXCHANGE } from '../src/events/topology';

const ROOT = path.resolve(__dirname, '../../..');
const TURBO = path.join(ROOT, 'node_modules/.bin/turbo');

/** The rendered objects of one overlay (Debian's `kubectl` renders Kustomize). */
function render(overlay: string): any[] {
  const text = execFileSync('kubectl', ['kustomize', path.join(ROOT, 'deploy/k8s/overlays', overlay)], { encoding: 'utf8' });
  return parseAllDocuments(text).map((doc) => doc.toJS());
}

const named = (objects: any[], kind: string, name: string) => objects.find((o) => o.kind === kind && o.metadata.name === name);

/** Each Secret's keys as deploy/k8s/secrets.keys lists them (`name:` then one indented key a line). */
function secretKeys(): Map<string, string[]> {
  const keys = new Map<string, string[]>();
  let current: string[] = [];
  for (const line of readFileSync(path.join(ROOT, 'deploy/k8s/secrets.keys'), 'utf8').split('\n')) {
    if (line.startsWith('#') || !line.trim()) continue;
    if (line.endsWith(':')) keys.set(line.slice(0, -1), (current = []));
    else current.push(line.trim());
  }
  return keys;
}

/** kustomize's generated Secrets carry a content hash: `identity-secrets-5f7…` is `identity-secrets`. */
const unhashed = (name: string) => name.replace(/-[a-z0-9]{10}$/, '');

const podLabels = (name: string) => ({ 'app.kubernetes.io/name': name, 'app.kubernetes.io/part-of': 'market' });

/** Whether a label selector selects pods with these labels (matchLabels and `In` expressions, all this layout uses). */
function selects(selector: any, labels: Record<string, string>): boolean {
  const plain = Object.entries(selector?.matchLabels ?? {}).every(([key, value]) => labels[key] === value);
  const expressions = (selector?.matchExpressions ?? []).every((e: any) => e.operator === 'In' && e.values.includes(labels[e.key]));
  return plain && expressions;
}

/** Whether the rendered NetworkPolicies let pods of `from` open a TCP connection to pods of `to` on `port`, both ways checked. */
function reachable(objects: any[], from: string, to: string, port: number): boolean {
  const policies = objects.filter((o) => o.kind === 'NetworkPolicy');
  const peerMatches = (peers: any[] | undefined, name: string) => (peers ?? []).some((peer) => peer.podSelector && !peer.namespaceSelector && selects(peer.podSelector, podLabels(name)));
  const portMatches = (ports: any[] | undefined) => (ports ?? []).some((p) => p.port === port && (p.protocol ?? 'TCP') === 'TCP');
  const out = policies
    .filter((p) => p.spec.policyTypes.includes('Egress') && selects(p.spec.podSelector, podLabels(from)))
    .some((p) => (p.spec.egress ?? []).some((rule: any) => peerMatches(rule.to, to) && portMatches(rule.ports)));
  const into = policies
    .filter((p) => p.spec.policyTypes.includes('Ingress') && selects(p.spec.podSelector, podLabels(to)))
    .some((p) => (p.spec.ingress ?? []).some((rule: any) => peerMatches(rule.from, from) && portMatches(rule.ports)));
  return out && into;
}

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

  it.each(['production', 'development'])('run every service with probes, resources, a disruption budget and its own secrets as files (%s)', (overlay) => {
    const objects = render(overlay);
    const layout = secretKeys();
    for (const name of [...SERVICE_NAMES, 'gateway']) {
      const deployment = named(objects, 'Deployment', name);
      expect(deployment).toBeDefined();
      const [container] = deployment.spec.template.spec.containers;
      expect(container.image).toMatch(new RegExp(`market/${name}:`));
      // every process's readiness is its own, the gateway's included (ADR 0056)
      expect(container.readinessProbe.httpGet.path).toBe('/readyz');
      expect(container.livenessProbe.httpGet.path).toBe('/healthz');
      expect(container.resources.requests).toEqual(expect.objectContaining({ cpu: expect.any(String), memory: expect.any(String) }));
      expect(container.resources.limits.memory).toBeDefined();
      expect(deployment.spec.template.spec.securityContext.runAsNonRoot).toBe(true);
      // its own Secret only, each key listed (a missing one stops the pod) and named to the kit's loader as X_FILE
      expect(container.envFrom).toEqual([{ configMapRef: { name: 'market-config' } }]);
      const secretVolumes = deployment.spec.template.spec.volumes.filter((v: any) => v.secret);
      expect(secretVolumes.map((v: any) => unhashed(v.secret.secretName))).toEqual([`${name}-secrets`]);
      const keys = secretVolumes[0].secret.items.map((item: any) => item.key);
      expect(keys).toEqual(layout.get(`${name}-secrets`));
      const mount = container.volumeMounts.find((m: any) => m.name === secretVolumes[0].name);
      expect(mount.readOnly).toBe(true);
      for (const key of keys) expect(container.env).toContainEqual({ name: `${key}_FILE`, value: `${mount.mountPath}/${key}` });
      expect(container.env.filter((v: any) => v.valueFrom?.secretKeyRef)).toEqual([]);
      expect(keys).not.toContain('DATABASE_ADMIN_URL');
      expect(keys).not.toContain('INTERNAL_ASSERTION_SECRET');
      expect(keys).toEqual(expect.arrayContaining(['REDIS_URL', 'INTERNAL_SIGNING_KEY', 'INTERNAL_PUBLIC_KEYS']));
      expect(named(objects, 'PodDisruptionBudget', name)).toBeDefined();
      expect(named(objects, 'Service', name)).toBeDefined();
    }
    for (const s of SERVICE_REGISTRY) {
      const env = named(objects, 'Deployment', s.name).spec.template.spec.containers[0].env;
      expect(env).toContainEqual({ name: 'DB_SCHEMA', value: s.schema });
      expect(env.map((v: any) => v.name)).toEqual(expect.arrayContaining(['DATABASE_URL_FILE', 'AMQP_URL_FILE', 'REDIS_URL_FILE']));
    }
    // the superuser URL is the provisioning job's alone
    const provision = named(objects, 'Job', 'market-provision').spec.template.spec;
    expect(provision.containers[0].env.filter((v: any) => v.valueFrom).map((v: any) => [v.name, unhashed(v.valueFrom.secretKeyRef.name)])).toEqual([
      ['DATABASE_ADMIN_URL', 'market-provision-secrets'],
      ['MARKET_DB_ROLE_PASSWORDS', 'market-provision-secrets'],
    ]);
    expect(layout.get('market-provision-secrets')).toEqual(['DATABASE_ADMIN_URL', 'MARKET_DB_ROLE_PASSWORDS']);
    expect([...layout].filter(([, keys]) => keys.includes('DATABASE_ADMIN_URL')).map(([secret]) => secret)).toEqual(['market-provision-secrets']);
    expect(objects.filter((o) => o.kind === 'HorizontalPodAutoscaler').map((o) => o.spec.scaleTargetRef.name).sort()).toEqual(['catalog', 'gateway']);
    expect(named(objects, 'Job', 'market-provision').spec.template.spec.containers[0].command).toEqual(['node', 'scripts/provision-db.mjs']);
    for (const external of ['postgres', 'rabbitmq']) expect(named(objects, 'Service', external).spec.type).toBe('ExternalName');
  });

  it.each(['production', 'development'])('deny every network path but those the contracts name (%s)', (overlay) => {
    const objects = render(overlay);
    const deny = named(objects, 'NetworkPolicy', 'default-deny');
    expect(deny.spec).toEqual({ podSelector: {}, policyTypes: ['Ingress', 'Egress'] });
    // the paths the contracts name: each internal route's callers to its service, the gateway to every service with public routes
    const paths = new Set([...allInternalRoutes.flatMap((r) => r.callers.map((c) => `${c}->${r.service}`)), ...allRoutes.map((r) => `gateway->${r.service}`)]);
    const processes = [...SERVICE_NAMES, 'gateway'];
    for (const from of processes) {
      for (const to of processes) {
        if (from !== to) expect([`${from}->${to}`, reachable(objects, from, to, 8080)]).toEqual([`${from}->${to}`, paths.has(`${from}->${to}`)]);
      }
    }
    // spot checks that do not lean on the contracts: a payment never starts at notify, identity calls nobody
    expect(reachable(objects, 'orders', 'wallet', 8080)).toBe(true);
    expect(reachable(objects, 'notify', 'wallet', 8080)).toBe(false);
    expect(processes.filter((to) => reachable(objects, 'identity', to, 8080))).toEqual([]);
    // the ingress controller reaches the gateway and nothing else; Prometheus only the metrics ports
    const fromNamespace = (namespace: string) => (rule: any) => rule.from.some((peer: any) => peer.namespaceSelector?.matchLabels?.['kubernetes.io/metadata.name'] === namespace);
    const ingressRules = objects.filter((o) => o.kind === 'NetworkPolicy').flatMap((p) => (p.spec.ingress ?? []).map((rule: any) => ({ policy: p.metadata.name, rule })));
    expect(ingressRules.filter(({ rule }) => fromNamespace('ingress-nginx')(rule)).map(({ policy, rule }) => [policy, rule.ports])).toEqual([['gateway', [{ protocol: 'TCP', port: 8080 }]]]);
    // (the production broker's nodes serve theirs on RabbitMQ's Prometheus port)
    const metricsPorts: Record<string, number> = { gateway: 9464, 'market-mq-nodes': 15692 };
    const metricsPort = (policy: string) => metricsPorts[policy] ?? 8080;
    expect(ingressRules.filter(({ rule }) => fromNamespace('monitoring')(rule)).every(({ policy, rule }) => rule.ports.length === 1 && rule.ports[0].port === metricsPort(policy))).toBe(true);
    // providers on the internet only for identity and wallet, on https, never a private address
    const providers = named(objects, 'NetworkPolicy', 'provider-clients');
    expect(processes.filter((name) => selects(providers.spec.podSelector, podLabels(name))).sort()).toEqual(['identity', 'wallet']);
    expect(providers.spec.egress).toEqual([{ to: [{ ipBlock: { cidr: '0.0.0.0/0', except: ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16'] } }], ports: [{ protocol: 'TCP', port: 443 }] }]);
    // Postgres for the services and the provisioning job, RabbitMQ for the services, Redis for them and the gateway
    const clients = (policy: string) => [...processes, 'market-provision'].filter((name) => selects(named(objects, 'NetworkPolicy', policy).spec.podSelector, podLabels(name))).sort();
    expect(clients('postgres-clients')).toEqual([...SERVICE_NAMES, 'market-provision'].sort());
    expect(clients('rabbitmq-clients')).toEqual([...SERVICE_NAMES].sort());
    expect(clients('redis-clients')).toEqual([...SERVICE_NAMES, 'gateway'].sort());
    expect(selects(named(objects, 'NetworkPolicy', 'dns').spec.podSelector, podLabels('market-provision'))).toBe(true);
  });

  it('trust X-Forwarded-For in production only from the ingress controller\'s address range', () => {
    const trust = (overlay: string) =>
      named(render(overlay), 'Deployment', 'gateway').spec.template.spec.containers[0].env.find((v: any) => v.name === 'TRUST_PROXY')?.value;
    expect(trust('production')).toMatch(/^\d+\.\d+\.\d+\.\d+\/\d+$/);
    expect(trust('development')).toBeUndefined();
  });

  it('run Redis in development with the default user off and one user per process, from an ACL file in a Secret', () => {
    const objects = render('development');
    const redis = named(objects, 'Deployment', 'redis').spec.template.spec;
    expect(redis.containers[0].args).toEqual(expect.arrayContaining(['--aclfile', '/etc/redis/users.acl']));
    const aclSecret = objects.find((o) => o.kind === 'Secret' && unhashed(o.metadata.name) === 'redis-acl');
    expect(redis.volumes.find((v: any) => v.secret).secret.secretName).toBe(aclSecret.metadata.name);
    const acl = Buffer.from(aclSecret.data['users.acl'], 'base64').toString('utf8').trim().split('\n');
    expect(acl[0]).toBe('user default off');
    for (const name of [...SERVICE_NAMES, 'gateway']) {
      const secret = objects.find((o) => o.kind === 'Secret' && unhashed(o.metadata.name) === `${name}-secrets`);
      const url = new URL(Buffer.from(secret.data.REDIS_URL, 'base64').toString('utf8'));
      expect(acl).toContainEqual(expect.stringMatching(new RegExp(`^user ${url.username} on >${url.password} `)));
    }
  });

  it('the validator refuses a Secret read by two workloads, one loaded whole into the environment, and a secret file nobody mounts', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'k8s-'));
    try {
      const file = path.join(dir, 'shared.yaml');
      const workload = (name: string, container: string) =>
        `apiVersion: apps/v1\nkind: Deployment\nmetadata: { name: ${name} }\nspec:\n  selector: { matchLabels: { app: ${name} } }\n  template:\n    metadata: { labels: { app: ${name} } }\n    spec:\n      volumes: [{ name: s, secret: { secretName: shared, items: [{ key: A, path: A }] } }]\n      containers: [${container}]\n`;
      appendFileSync(file, workload('one', `{ name: one, image: x, volumeMounts: [{ name: s, mountPath: /run/secrets/market }], env: [{ name: A_FILE, value: /run/secrets/market/A }, { name: B_FILE, value: /run/secrets/market/B }] }`));
      appendFileSync(file, '---\n' + workload('two', `{ name: two, image: x, envFrom: [{ secretRef: { name: other } }] }`));
      const run = spawnSync(process.execPath, [path.join(ROOT, 'deploy/k8s/validate.mjs'), file], { encoding: 'utf8' });
      expect(run.status).toBe(1);
      const problems: string[] = JSON.parse(run.stdout).problems;
      expect(problems).toContainEqual(expect.stringContaining('Secret shared is read by Deployment/one and Deployment/two'));
      expect(problems).toContainEqual(expect.stringContaining('Deployment/two: loads the whole Secret other into its environment'));
      expect(problems).toContainEqual(expect.stringContaining('Deployment/one: B_FILE names /run/secrets/market/B, which no Secret of its own mounts'));
      expect(problems.join()).not.toContain('A_FILE');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('run Postgres and RabbitMQ in production from operator templates, the services reaching them by their usual names', () => {
    const objects = render('production');
    const custom = (apiVersion: string, kind: string) => objects.filter((o) => o.apiVersion === apiVersion && o.kind === kind);
    // three Postgres instances, one synchronous replica, behind a session-mode pooler (ADR 0064)
    const [pg] = custom('postgresql.cnpg.io/v1', 'Cluster');
    expect(pg.spec).toEqual(expect.objectContaining({ instances: 3, minSyncReplicas: 1, enableSuperuserAccess: true }));
    const [pooler] = custom('postgresql.cnpg.io/v1', 'Pooler');
    expect(pooler.spec).toEqual(expect.objectContaining({ cluster: { name: pg.metadata.name }, type: 'rw' }));
    expect(pooler.spec.pgbouncer.poolMode).toBe('session');
    // what the services send at connect and PgBouncer cannot pass on is ignored there, never refused
    expect(pooler.spec.pgbouncer.parameters.ignore_startup_parameters.split(',')).toEqual(
      expect.arrayContaining(['options', 'statement_timeout', 'idle_in_transaction_session_timeout']),
    );
    expect(named(objects, 'Service', 'postgres').spec.externalName).toBe(`${pooler.metadata.name}.market.svc.cluster.local`);
    // three broker nodes, and each service's user with exactly the permissions provision-broker.mjs grants
    const [mq] = custom('rabbitmq.com/v1beta1', 'RabbitmqCluster');
    expect(mq.spec.replicas).toBe(3);
    expect(named(objects, 'Service', 'rabbitmq').spec.externalName).toBe(`${mq.metadata.name}.market.svc.cluster.local`);
    for (const service of SERVICE_NAMES) {
      const granted = servicePermissions(DEFAULT_EXCHANGE, service);
      const user = custom('rabbitmq.com/v1beta1', 'User').find((u) => u.metadata.name === `market-mq-${service}`);
      expect(user.spec).toEqual({ tags: [], importCredentialsSecret: { name: `market-mq-user-${service}` }, rabbitmqClusterReference: { name: mq.metadata.name } });
      const ofUser = (kind: string) => custom('rabbitmq.com/v1beta1', kind).filter((p) => p.spec.userReference.name === user.metadata.name);
      expect(ofUser('Permission').map((p) => [p.spec.vhost, p.spec.permissions])).toEqual([['/', { configure: granted.configure, write: granted.write, read: granted.read }]]);
      expect(ofUser('TopicPermission').map((p) => [p.spec.vhost, p.spec.permissions])).toEqual([['/', granted.topic]]);
    }
    expect(custom('rabbitmq.com/v1beta1', 'User')).toHaveLength(SERVICE_NAMES.length);
    // the engines' Secrets are the operators' alone, never a workload's
    const workloadSecrets = [...secretKeys().keys()];
    for (const secret of [pg.spec.superuserSecret.name, ...custom('rabbitmq.com/v1beta1', 'User').map((u) => u.spec.importCredentialsSecret.name)]) {
      expect(workloadSecrets).not.toContain(secret);
    }
    // the network both ways: the services to the pooler and the broker's nodes, the pooler to the instances, and nobody else
    const podsMatch = (policy: any, labels: Record<string, string>) => selects(policy.spec.podSelector, labels);
    const allows = (fromLabels: Record<string, string>, toLabels: Record<string, string>, port: number) => {
      const policies = objects.filter((o) => o.kind === 'NetworkPolicy');
      const peer = (peers: any[] | undefined, labels: Record<string, string>) => (peers ?? []).some((p) => p.podSelector && !p.namespaceSelector && selects(p.podSelector, labels));
      const onPort = (ports: any[] | undefined) => (ports ?? []).some((p) => p.port === port);
      const out = policies.filter((p) => p.spec.policyTypes.includes('Egress') && podsMatch(p, fromLabels)).some((p) => (p.spec.egress ?? []).some((r: any) => peer(r.to, toLabels) && onPort(r.ports)));
      const into = policies.filter((p) => p.spec.policyTypes.includes('Ingress') && podsMatch(p, toLabels)).some((p) => (p.spec.ingress ?? []).some((r: any) => peer(r.from, fromLabels) && onPort(r.ports)));
      return out && into;
    };
    const poolerPod = { 'cnpg.io/poolerName': pooler.metadata.name, 'cnpg.io/podRole': 'pooler' };
    const instancePod = { 'cnpg.io/cluster': pg.metadata.name, 'cnpg.io/podRole': 'instance' };
    const brokerPod = { 'app.kubernetes.io/name': mq.metadata.name, 'app.kubernetes.io/component': 'rabbitmq' };
    for (const service of SERVICE_NAMES) {
      expect([service, allows(podLabels(service), poolerPod, 5432), allows(podLabels(service), brokerPod, 5672)]).toEqual([service, true, true]);
    }
    expect(allows(podLabels('gateway'), poolerPod, 5432)).toBe(false);
    expect(allows(podLabels('gateway'), brokerPod, 5672)).toBe(false);
    expect(allows(poolerPod, instancePod, 5432)).toBe(true);
    expect(allows(podLabels('market-provision'), instancePod, 5432)).toBe(true);
    expect(allows(instancePod, instancePod, 5432)).toBe(true);
    expect(allows(podLabels('orders'), instancePod, 5432)).toBe(false);
  });

  it('expose in production only the gateway, through an ingress with TLS that lets event streams idle', () => {
    const objects = render('production');
    const ingresses = objects.filter((o) => o.kind === 'Ingress');
    expect(ingresses.map((i) => i.metadata.name)).toEqual(['gateway']);
    const [ingress] = ingresses;
    const backends = ingress.spec.rules.flatMap((r: any) => r.http.paths.map((p: any) => p.backend.service));
    expect(backends).toEqual([{ name: 'gateway', port: { name: 'http' } }]);
    // the metrics port is not the one the ingress routes to
    expect(named(objects, 'Service', 'gateway').spec.ports.find((p: any) => p.name === 'http').targetPort).toBe('http');
    const hosts = ingress.spec.rules.map((r: any) => r.host);
    expect(ingress.spec.tls).toEqual([{ hosts, secretName: expect.any(String) }]);
    const annotations = ingress.metadata.annotations;
    expect(annotations['nginx.ingress.kubernetes.io/ssl-redirect']).toBe('true');
    expect(annotations['nginx.ingress.kubernetes.io/proxy-buffering']).toBe('off');
    // a stream idles for one heartbeat (notify's NOTIFY_HEARTBEAT_MS default, 15 s) between reads
    expect(Number(annotations['nginx.ingress.kubernetes.io/proxy-read-timeout'])).toBeGreaterThan(2 * 15);
  });

  it('the validator refuses custom resources and routes whose references this render does not hold', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'k8s-'));
    try {
      const file = path.join(dir, 'refs.yaml');
      appendFileSync(file, 'apiVersion: postgresql.cnpg.io/v1\nkind: Pooler\nmetadata: { name: p }\nspec: { cluster: { name: nowhere }, type: rw, pgbouncer: { poolMode: statement } }\n');
      appendFileSync(file, '---\napiVersion: rabbitmq.com/v1beta1\nkind: Permission\nmetadata: { name: q }\nspec: { vhost: /, userReference: { name: ghost }, rabbitmqClusterReference: { name: none }, permissions: { configure: x, write: x, read: x } }\n');
      appendFileSync(file, '---\napiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata: { name: i }\nspec: { rules: [{ http: { paths: [{ path: /, pathType: Prefix, backend: { service: { name: absent, port: { name: http } } } }] } }] }\n');
      appendFileSync(file, '---\napiVersion: v1\nkind: Service\nmetadata: { name: postgres }\nspec: { type: ExternalName, externalName: missing-rw.market.svc.cluster.local }\n');
      const run = spawnSync(process.execPath, [path.join(ROOT, 'deploy/k8s/validate.mjs'), file], { encoding: 'utf8' });
      expect(run.status).toBe(1);
      const problems: string[] = JSON.parse(run.stdout).problems;
      expect(problems).toEqual(
        expect.arrayContaining([
          expect.stringContaining('Pooler/p: spec.cluster names nowhere'),
          expect.stringContaining('Pooler/p: spec.pgbouncer.poolMode must be session or transaction'),
          expect.stringContaining('Permission/q: spec.rabbitmqClusterReference names none'),
          expect.stringContaining('Permission/q: spec.userReference names ghost'),
          expect.stringContaining('Ingress/i: routes to absent:http'),
          expect.stringContaining('Service/postgres: points at missing-rw.market.svc.cluster.local'),
        ]),
      );
      expect(problems).toHaveLength(6);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
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
