#!/usr/bin/env node
// Writes deploy/k8s/base/ from the service registry (packages/contracts/src/services.ts), so a new
// service gets its Deployment, Service, PodDisruptionBudget, Secret layout and NetworkPolicy like
// every other one; the network paths between services come from the internal route contracts
// (who may call whom). Also writes secrets.keys (each Secret's keys) and the development overlay's
// secrets and Redis users, and the production overlay's broker users for the RabbitMQ operator.
// Needs `npm run build`. `--check` exits 1 when a committed file differs
// from what it would write.
import { createRequire } from 'node:module';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { stringify } from 'yaml';

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);
const { SERVICE_REGISTRY, allInternalRoutes, allRoutes } = require('../../packages/contracts/dist/index.js');
const { redisAclRules } = require('../../packages/shared/dist/redis/index.js');
const { DEFAULT_EXCHANGE, servicePermissions } = require('../../packages/shared/dist/events/index.js');

const PORT = 8080;
const GATEWAY_METRICS_PORT = 9464;
/** the two that take the public traffic's swings scale on CPU; the others run a fixed pair */
const AUTOSCALED = new Set(['gateway', 'catalog']);
const labels = (name) => ({ 'app.kubernetes.io/name': name, 'app.kubernetes.io/part-of': 'market' });
const upper = (name) => name.toUpperCase();

/** Where each process finds its Secret's keys as files; `X_FILE` points at `X` here (the kit's loader reads it). */
const SECRET_DIR = '/run/secrets/market';
/** Each process signs its internal calls with its own private key and checks everybody's public ones. */
const INTERNAL_KEYS = ['INTERNAL_SIGNING_KEY', 'INTERNAL_SIGNING_KEY_ID', 'INTERNAL_PUBLIC_KEYS'];
/** A service's own Postgres role, broker user and Redis user (ADR 0003, ADR 0011, ADR 0055). */
const CONNECTIONS = ['DATABASE_URL', 'AMQP_URL', 'REDIS_URL'];

/**
 * Every key of each process's own Secret: exactly the secrets its configuration reads (a test in
 * services/gateway holds this against each service's configuration), nobody else's. A key a
 * deployment does not use (a provider it has not chosen) is present and empty, which reads as unset.
 */
const SECRETS = {
  gateway: ['REDIS_URL', ...INTERNAL_KEYS, 'USER_TOKEN_SECRET', 'ADMIN_TOKEN_SECRET'],
  identity: [
    ...CONNECTIONS,
    ...INTERNAL_KEYS,
    'USER_TOKEN_SECRET',
    'SMS_CODE_SECRET',
    'DATA_ENCRYPTION_KEYS',
    'ALIYUN_ACCESS_KEY_ID',
    'ALIYUN_ACCESS_KEY_SECRET',
    'TENCENT_SECRET_ID',
    'TENCENT_SECRET_KEY',
  ],
  catalog: [...CONNECTIONS, ...INTERNAL_KEYS, 'DATA_ENCRYPTION_KEYS', 'OPEN_UPLOAD_TOKEN'],
  orders: [...CONNECTIONS, ...INTERNAL_KEYS, 'DATA_ENCRYPTION_KEYS'],
  wallet: [...CONNECTIONS, ...INTERNAL_KEYS, 'DATA_ENCRYPTION_KEYS', 'PAYGATE_SECRET', 'ALIPAY_PRIVATE_KEY', 'WECHATPAY_PRIVATE_KEY', 'WECHATPAY_API_V3_KEY'],
  // the bucket's key pair, empty while files keep to the disk (FILES_STORAGE, docs/deployment.md "File storage")
  files: [...CONNECTIONS, ...INTERNAL_KEYS, 'FILES_S3_ACCESS_KEY_ID', 'FILES_S3_ACCESS_KEY_SECRET'],
  notify: [...CONNECTIONS, ...INTERNAL_KEYS],
  admin: [...CONNECTIONS, ...INTERNAL_KEYS, 'ADMIN_TOKEN_SECRET', 'ADMIN_BOOTSTRAP_PASSWORD'],
};
const PROVISION_SECRETS = ['DATABASE_ADMIN_URL', 'MARKET_DB_ROLE_PASSWORDS'];
const secretName = (name) => `${name}-secrets`;
for (const { name } of [...SERVICE_REGISTRY, { name: 'gateway' }]) {
  if (!SECRETS[name]) throw new Error(`no secret layout for ${name}: add it to SECRETS in deploy/k8s/generate.mjs`);
}

/** The secret volume (each key listed, so a missing key stops the pod from starting) and the `X_FILE` variables. */
function secretFiles(name) {
  const keys = SECRETS[name];
  return {
    volumes: [{ name: 'secrets', secret: { secretName: secretName(name), defaultMode: 0o440, items: keys.map((key) => ({ key, path: key })) } }],
    mounts: [{ name: 'secrets', mountPath: SECRET_DIR, readOnly: true }],
    env: keys.map((key) => ({ name: `${key}_FILE`, value: `${SECRET_DIR}/${key}` })),
  };
}

function deployment(name, { env, ports, readiness, volumes = [], mounts = [] }) {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, labels: labels(name) },
    spec: {
      replicas: 2,
      selector: { matchLabels: labels(name) },
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 0, maxSurge: 1 } },
      template: {
        metadata: {
          labels: labels(name),
          annotations: { 'prometheus.io/scrape': 'true', 'prometheus.io/path': '/metrics', 'prometheus.io/port': String(ports.at(-1).containerPort) },
        },
        spec: {
          automountServiceAccountToken: false,
          // SIGTERM drains (ADR 0038); the preStop pause lets the endpoints controller take the pod
          // out of the Service before the process stops accepting connections
          terminationGracePeriodSeconds: 40,
          securityContext: { runAsNonRoot: true, runAsUser: 1000, runAsGroup: 1000, fsGroup: 1000, seccompProfile: { type: 'RuntimeDefault' } },
          // the root filesystem is read-only; temporary files (uploads in flight) go to /tmp
          volumes: [{ name: 'tmp', emptyDir: {} }, ...volumes],
          containers: [
            {
              name,
              volumeMounts: [{ name: 'tmp', mountPath: '/tmp' }, ...mounts],
              image: `market/${name}:latest`,
              ports,
              envFrom: [{ configMapRef: { name: 'market-config' } }],
              env,
              readinessProbe: { httpGet: { path: readiness, port: 'http' }, periodSeconds: 5, timeoutSeconds: 3, failureThreshold: 2 },
              livenessProbe: { httpGet: { path: '/healthz', port: 'http' }, initialDelaySeconds: 20, periodSeconds: 10, timeoutSeconds: 3, failureThreshold: 3 },
              startupProbe: { httpGet: { path: '/healthz', port: 'http' }, periodSeconds: 2, failureThreshold: 60 },
              lifecycle: { preStop: { sleep: { seconds: 5 } } },
              resources: { requests: { cpu: '100m', memory: '160Mi' }, limits: { memory: '512Mi' } },
              securityContext: { allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: { drop: ['ALL'] } },
            },
          ],
        },
      },
    },
  };
}

function service(name, ports) {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name, labels: labels(name) },
    spec: { selector: labels(name), ports: ports.map((p) => ({ name: p.name, port: p.name === 'http' ? 80 : p.containerPort, targetPort: p.name })) },
  };
}

function disruptionBudget(name) {
  return {
    apiVersion: 'policy/v1',
    kind: 'PodDisruptionBudget',
    metadata: { name, labels: labels(name) },
    spec: { minAvailable: 1, selector: { matchLabels: labels(name) } },
  };
}

function autoscaler(name) {
  return {
    apiVersion: 'autoscaling/v2',
    kind: 'HorizontalPodAutoscaler',
    metadata: { name, labels: labels(name) },
    spec: {
      scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name },
      minReplicas: 2,
      maxReplicas: 10,
      metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 70 } } }],
    },
  };
}

/** Postgres, RabbitMQ and Redis are managed services outside the cluster: names here, hosts in the overlay. */
function external(name) {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name, labels: { 'app.kubernetes.io/name': name, 'app.kubernetes.io/part-of': 'market', 'app.kubernetes.io/component': 'external' } },
    spec: { type: 'ExternalName', externalName: `${name}.invalid` },
  };
}

const config = {
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'market-config', labels: { 'app.kubernetes.io/part-of': 'market' } },
  data: {
    NODE_ENV: 'production',
    HOST: '0.0.0.0',
    PORT: String(PORT),
    CAPTCHA_MODE: 'strict',
    ...Object.fromEntries(SERVICE_REGISTRY.map((s) => [`${upper(s.name)}_URL`, `http://${s.name}`])),
  },
};

const provision = {
  apiVersion: 'batch/v1',
  kind: 'Job',
  metadata: { name: 'market-provision', labels: { 'app.kubernetes.io/name': 'market-provision', 'app.kubernetes.io/part-of': 'market', 'app.kubernetes.io/component': 'provision' } },
  spec: {
    backoffLimit: 6,
    ttlSecondsAfterFinished: 86400,
    template: {
      metadata: { labels: { 'app.kubernetes.io/name': 'market-provision', 'app.kubernetes.io/part-of': 'market' } },
      spec: {
        restartPolicy: 'OnFailure',
        automountServiceAccountToken: false,
        securityContext: { runAsNonRoot: true, runAsUser: 1000, runAsGroup: 1000, seccompProfile: { type: 'RuntimeDefault' } },
        containers: [
          {
            name: 'provision',
            // the admin image carries the provisioning scripts, pg and the registry they read
            image: 'market/admin:latest',
            command: ['node', 'scripts/provision-db.mjs'],
            env: [
              { name: 'NODE_ENV', value: 'production' },
              // the only holder of the superuser URL: a one-shot job, whose script reads its environment
              { name: 'DATABASE_ADMIN_URL', valueFrom: { secretKeyRef: { name: secretName('market-provision'), key: 'DATABASE_ADMIN_URL' } } },
              { name: 'MARKET_DB_NAME', value: 'market' },
              { name: 'MARKET_DB_ROLE_PASSWORDS', valueFrom: { secretKeyRef: { name: secretName('market-provision'), key: 'MARKET_DB_ROLE_PASSWORDS' } } },
            ],
            resources: { requests: { cpu: '50m', memory: '96Mi' }, limits: { memory: '256Mi' } },
            securityContext: { allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: { drop: ['ALL'] } },
          },
        ],
      },
    },
  },
};

/** The callers of each service's internal routes, from the contracts: the only paths between services. */
const callers = new Map(SERVICE_REGISTRY.map((s) => [s.name, new Set()]));
for (const route of allInternalRoutes) for (const caller of route.callers) callers.get(route.service).add(caller);
// the gateway forwards the public routes to the services that serve them
for (const route of allRoutes) callers.get(route.service).add('gateway');
const callees = (name) => [...callers].filter(([, from]) => from.has(name)).map(([service]) => service).sort();

const pods = (names) => ({ matchExpressions: [{ key: 'app.kubernetes.io/name', operator: 'In', values: [...names].sort() }] });
const policy = (name, spec) => ({
  apiVersion: 'networking.k8s.io/v1',
  kind: 'NetworkPolicy',
  metadata: { name, labels: { 'app.kubernetes.io/part-of': 'market' } },
  spec,
});
const tcp = (port) => ({ protocol: 'TCP', port });
/** Postgres, RabbitMQ and Redis are outside the cluster (ExternalName): the overlay narrows `cidr` to their network. */
const outside = (cidr, ports, except) => ({ to: [{ ipBlock: except ? { cidr, except } : { cidr } }], ports: ports.map(tcp) });
const PRIVATE_RANGES = ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16'];
/** the namespaces of the ingress controller and of Prometheus; an overlay may rename them */
const INGRESS_NAMESPACE = 'ingress-nginx';
const MONITORING_NAMESPACE = 'monitoring';
const fromNamespace = (namespace) => ({ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': namespace } } });

/**
 * Nothing may talk to or from a pod unless a policy here says so (ADR 0055): the ingress controller
 * reaches the gateway, the gateway the services, each service only the neighbours whose internal
 * routes name it as a caller, everybody DNS, the services Postgres, RabbitMQ and Redis, identity
 * and wallet their providers on the internet, Prometheus the metrics ports.
 */
function networkPolicies() {
  const services = SERVICE_REGISTRY.map((s) => s.name);
  const everyone = pods([...services, 'gateway', 'market-provision']);
  const list = [
    policy('default-deny', { podSelector: {}, policyTypes: ['Ingress', 'Egress'] }),
    policy('dns', {
      podSelector: everyone,
      policyTypes: ['Egress'],
      egress: [
        {
          to: [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'kube-system' } }, podSelector: { matchLabels: { 'k8s-app': 'kube-dns' } } }],
          ports: [{ protocol: 'UDP', port: 53 }, tcp(53)],
        },
      ],
    }),
    policy('postgres-clients', { podSelector: pods([...services, 'market-provision']), policyTypes: ['Egress'], egress: [outside('0.0.0.0/0', [5432])] }),
    policy('rabbitmq-clients', { podSelector: pods(services), policyTypes: ['Egress'], egress: [outside('0.0.0.0/0', [5672])] }),
    policy('redis-clients', { podSelector: pods([...services, 'gateway']), policyTypes: ['Egress'], egress: [outside('0.0.0.0/0', [6379])] }),
    // SMS, real-name and payment providers answer on https on the internet, never on a private address
    policy('provider-clients', { podSelector: pods(['identity', 'wallet']), policyTypes: ['Egress'], egress: [outside('0.0.0.0/0', [443], PRIVATE_RANGES)] }),
    policy('gateway', {
      podSelector: { matchLabels: labels('gateway') },
      policyTypes: ['Ingress', 'Egress'],
      ingress: [
        { from: [fromNamespace(INGRESS_NAMESPACE)], ports: [tcp(PORT)] },
        { from: [fromNamespace(MONITORING_NAMESPACE)], ports: [tcp(GATEWAY_METRICS_PORT)] },
      ],
      egress: [{ to: [{ podSelector: pods(callees('gateway')) }], ports: [tcp(PORT)] }],
    }),
  ];
  for (const name of services) {
    const to = callees(name);
    list.push(
      policy(name, {
        podSelector: { matchLabels: labels(name) },
        policyTypes: ['Ingress', 'Egress'],
        ingress: [
          { from: [{ podSelector: pods(callers.get(name)) }], ports: [tcp(PORT)] },
          { from: [fromNamespace(MONITORING_NAMESPACE)], ports: [tcp(PORT)] },
        ],
        egress: to.length > 0 ? [{ to: [{ podSelector: pods(to) }], ports: [tcp(PORT)] }] : [],
      }),
    );
  }
  return list;
}

const files = {
  'config.yaml': [config],
  'external.yaml': ['postgres', 'rabbitmq', 'redis'].map(external),
  'provision-job.yaml': [provision],
  'network-policies.yaml': networkPolicies(),
};
for (const entry of [...SERVICE_REGISTRY, { name: 'gateway' }]) {
  const name = entry.name;
  const gateway = name === 'gateway';
  const ports = gateway
    ? [{ name: 'http', containerPort: PORT }, { name: 'metrics', containerPort: GATEWAY_METRICS_PORT }]
    : [{ name: 'http', containerPort: PORT }];
  // its own Secret as files: its database role, broker and Redis users and keys, nobody else's (ADR 0055)
  const secrets = secretFiles(name);
  const env = [...(gateway ? [{ name: 'GATEWAY_METRICS_PORT', value: String(GATEWAY_METRICS_PORT) }] : [{ name: 'DB_SCHEMA', value: entry.schema }]), ...secrets.env];
  // Every process's /readyz is its own readiness: the gateway's says whether it can route (its Redis,
  // from a view refreshed at most once a second), never whether every service is up, so one service
  // down does not take every gateway pod out (ADR 0056); the system's view is on the metrics port.
  const readiness = '/readyz';
  // files keeps its objects on a volume every replica shares
  const storage =
    name === 'files'
      ? {
          volumes: [...secrets.volumes, { name: 'storage', persistentVolumeClaim: { claimName: 'files-storage' } }],
          mounts: [...secrets.mounts, { name: 'storage', mountPath: '/data/files' }],
        }
      : { volumes: secrets.volumes, mounts: secrets.mounts };
  if (name === 'files') env.push({ name: 'FILES_STORAGE_DIR', value: '/data/files' });
  const objects = [deployment(name, { env, ports, readiness, ...storage }), service(name, ports), disruptionBudget(name)];
  if (name === 'files') {
    objects.push({
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: { name: 'files-storage', labels: labels(name) },
      spec: { accessModes: ['ReadWriteMany'], resources: { requests: { storage: '20Gi' } } },
    });
  }
  if (AUTOSCALED.has(name)) objects.push(autoscaler(name));
  files[`${name}.yaml`] = objects;
}
const kustomization = {
  apiVersion: 'kustomize.config.k8s.io/v1beta1',
  kind: 'Kustomization',
  resources: Object.keys(files).sort(),
};
files['kustomization.yaml'] = [kustomization];

const header = '# Generated by deploy/k8s/generate.mjs from the service registry; edit the generator, not this file.\n';
/** every file written, by its path below deploy/k8s */
const texts = Object.fromEntries(
  Object.entries(files).map(([file, objects]) => [`base/${file}`, header + objects.map((o) => stringify(o, { lineWidth: 0 })).join('---\n')]),
);

const processes = [...SERVICE_REGISTRY.map((s) => s.name), 'gateway'];
texts['secrets.keys'] = [
  '# Generated by deploy/k8s/generate.mjs: the Secrets of the market namespace and their keys (values never in',
  '# the repository). Each is read by one workload only; a key a deployment does not use is present and empty.',
  ...[...processes, 'market-provision'].flatMap((name) => [`${secretName(name)}:`, ...(SECRETS[name] ?? PROVISION_SECRETS).map((key) => `  ${key}`)]),
  '',
].join('\n');

// The development overlay: the published development values (the services' own defaults where a
// key is left empty), and an in-cluster Redis with one user per process, as the ACL file says.
const redisUser = (name) => `market_${name}`;
const devRedisPassword = (name) => `dev-${name}-redis-password`;
const devValues = (name) => ({
  DATABASE_URL: `postgres://${SERVICE_REGISTRY.find((s) => s.name === name)?.role}:dev-${name}-password@postgres:5432/market`,
  AMQP_URL: 'amqp://guest:guest@rabbitmq:5672',
  REDIS_URL: `redis://${redisUser(name)}:${devRedisPassword(name)}@redis:6379`,
});
const devHeader = '# Generated by deploy/k8s/generate.mjs: published development values; empty keys take the service\'s development default.\n';
for (const name of processes) {
  texts[`overlays/development/secrets/${name}.env`] = devHeader + SECRETS[name].map((key) => `${key}=${devValues(name)[key] ?? ''}`).join('\n') + '\n';
}
texts['overlays/development/secrets/market-provision.env'] =
  devHeader +
  'DATABASE_ADMIN_URL=postgres://postgres@postgres:5432/postgres\n' +
  `MARKET_DB_ROLE_PASSWORDS=${SERVICE_REGISTRY.map((s) => `${s.name}:dev-${s.name}-password`).join(',')}\n`;
texts['overlays/development/secrets/kustomization.yaml'] =
  header +
  stringify(
    {
      apiVersion: 'kustomize.config.k8s.io/v1beta1',
      kind: 'Kustomization',
      secretGenerator: [
        ...[...processes, 'market-provision'].map((name) => ({ name: secretName(name), envs: [`${name}.env`] })),
        { name: 'redis-acl', files: ['users.acl'] },
      ],
    },
    { lineWidth: 0 },
  );
// the default user is off: every connection names its process's user, with the kit's own rules (its
// key patterns, the trusted keys only their owners write, no dangerous or admin commands; ADR 0054),
// as `node scripts/provision-redis.mjs --acl-file` writes them for production with real passwords
texts['overlays/development/secrets/users.acl'] = [
  'user default off',
  ...processes.map((name) => `user ${redisUser(name)} on >${devRedisPassword(name)} resetchannels ${redisAclRules(name, '').join(' ')}`),
  '',
].join('\n');

// The production overlay's broker users (ADR 0054, 0064): for each service a User of the RabbitMQ
// messaging topology operator, its password from a Secret made out of band, and exactly the
// permissions provision-broker.mjs grants, from the same kit function, so the two never disagree.
const BROKER_CLUSTER = 'market-mq';
const brokerObject = (kind, name, spec) => ({
  apiVersion: 'rabbitmq.com/v1beta1',
  kind,
  metadata: { name, labels: { 'app.kubernetes.io/part-of': 'market' } },
  spec: { ...spec, rabbitmqClusterReference: { name: BROKER_CLUSTER } },
});
const brokerObjects = SERVICE_REGISTRY.flatMap(({ name }) => {
  const user = `${BROKER_CLUSTER}-${name}`;
  const granted = servicePermissions(DEFAULT_EXCHANGE, name);
  return [
    // the Secret's `username` is market_<service>: the consumer reads the service off its broker user
    brokerObject('User', user, { tags: [], importCredentialsSecret: { name: `${BROKER_CLUSTER}-user-${name}` } }),
    brokerObject('Permission', user, { vhost: '/', userReference: { name: user }, permissions: { configure: granted.configure, write: granted.write, read: granted.read } }),
    brokerObject('TopicPermission', user, { vhost: '/', userReference: { name: user }, permissions: granted.topic }),
  ];
});
texts['overlays/production/rabbitmq-users.yaml'] =
  '# Generated by deploy/k8s/generate.mjs from the contracts (the kit\'s servicePermissions); edit the generator, not this file.\n' +
  '# Each User\'s credentials: a Secret market-mq-user-<service> with `username` market_<service> and `password`, made out of band.\n' +
  brokerObjects.map((o) => stringify(o, { lineWidth: 0 })).join('---\n');

let differs = false;
for (const [file, text] of Object.entries(texts)) {
  const target = path.join(here, file);
  mkdirSync(path.dirname(target), { recursive: true });
  if (process.argv.includes('--check')) {
    let current = '';
    try {
      current = readFileSync(target, 'utf8');
    } catch {
      // missing: differs
    }
    if (current !== text) {
      process.stderr.write(`${path.relative(process.cwd(), target)} is not what the generator writes\n`);
      differs = true;
    }
  } else {
    writeFileSync(target, text);
  }
}
if (differs) process.exit(1);
