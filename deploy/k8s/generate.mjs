#!/usr/bin/env node
// Writes deploy/k8s/base/ from the service registry (packages/contracts/src/services.ts), so a new
// service gets its Deployment, Service and PodDisruptionBudget like every other one. Needs
// `npm run build`. `--check` exits 1 when the committed base differs from what it would write.
import { createRequire } from 'node:module';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { stringify } from 'yaml';

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);
const { SERVICE_REGISTRY } = require('../../packages/contracts/dist/index.js');

const PORT = 8080;
const GATEWAY_METRICS_PORT = 9464;
/** the two that take the public traffic's swings scale on CPU; the others run a fixed pair */
const AUTOSCALED = new Set(['gateway', 'catalog']);
const labels = (name) => ({ 'app.kubernetes.io/name': name, 'app.kubernetes.io/part-of': 'market' });
const upper = (name) => name.toUpperCase();

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
              envFrom: [{ configMapRef: { name: 'market-config' } }, { secretRef: { name: 'market-secrets' } }],
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
    REDIS_URL: 'redis://redis:6379',
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
              { name: 'DATABASE_ADMIN_URL', valueFrom: { secretKeyRef: { name: 'market-secrets', key: 'DATABASE_ADMIN_URL' } } },
              { name: 'MARKET_DB_NAME', value: 'market' },
              { name: 'MARKET_DB_ROLE_PASSWORDS', valueFrom: { secretKeyRef: { name: 'market-secrets', key: 'MARKET_DB_ROLE_PASSWORDS' } } },
            ],
            resources: { requests: { cpu: '50m', memory: '96Mi' }, limits: { memory: '256Mi' } },
            securityContext: { allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: { drop: ['ALL'] } },
          },
        ],
      },
    },
  },
};

const files = { 'config.yaml': [config], 'external.yaml': ['postgres', 'rabbitmq', 'redis'].map(external), 'provision-job.yaml': [provision] };
for (const entry of [...SERVICE_REGISTRY, { name: 'gateway' }]) {
  const name = entry.name;
  const gateway = name === 'gateway';
  const ports = gateway
    ? [{ name: 'http', containerPort: PORT }, { name: 'metrics', containerPort: GATEWAY_METRICS_PORT }]
    : [{ name: 'http', containerPort: PORT }];
  const env = gateway
    ? [{ name: 'GATEWAY_METRICS_PORT', value: String(GATEWAY_METRICS_PORT) }]
    : [
        { name: 'DB_SCHEMA', value: entry.schema },
        // each service's own database role and broker user (ADR 0003, ADR 0011)
        { name: 'DATABASE_URL', valueFrom: { secretKeyRef: { name: 'market-secrets', key: `${upper(name)}_DATABASE_URL` } } },
        { name: 'AMQP_URL', valueFrom: { secretKeyRef: { name: 'market-secrets', key: `${upper(name)}_AMQP_URL` } } },
      ];
  // A gateway is ready when it can route: its own /readyz asks every service, and making every
  // gateway unready when one service is down would take the healthy routes down with it (ADR 0038).
  const readiness = gateway ? '/healthz' : '/readyz';
  // files keeps its objects on a volume every replica shares
  const storage =
    name === 'files'
      ? { volumes: [{ name: 'storage', persistentVolumeClaim: { claimName: 'files-storage' } }], mounts: [{ name: 'storage', mountPath: '/data/files' }] }
      : {};
  if (name === 'files') env.push({ name: 'FILES_STORAGE_DIR', value: '/data/files' });
  // each process's own internal identity key (ADR 0053); INTERNAL_PUBLIC_KEYS comes with the rest.
  // Optional here: the development overlay runs on the development keys, and a production process
  // without its key refuses to start, naming it.
  env.push(
    ...['INTERNAL_SIGNING_KEY', 'INTERNAL_SIGNING_KEY_ID'].map((variable) => ({
      name: variable,
      valueFrom: { secretKeyRef: { name: 'market-secrets', key: `${upper(name)}_${variable}`, optional: true } },
    })),
  );
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

const base = path.join(here, 'base');
mkdirSync(base, { recursive: true });
const header = '# Generated by deploy/k8s/generate.mjs from the service registry; edit the generator, not this file.\n';
let differs = false;
for (const [file, objects] of Object.entries(files)) {
  const text = header + objects.map((o) => stringify(o, { lineWidth: 0 })).join('---\n');
  const target = path.join(base, file);
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
