#!/usr/bin/env node
// Renders each overlay with `kubectl kustomize` (or reads the YAML files given) and checks every
// object against the Kubernetes schemas (kubernetes-models), and the secret layout (ADR 0055): no
// Secret read by two workloads, none loaded whole into the environment, and every secret file a
// container is told of (`X_FILE`) mounted from its own Secret. Prints one line per problem, exits 1
// when there is any. No cluster is needed. The operators' custom resources (CloudNativePG, RabbitMQ),
// whose schemas are their CRDs rather than kubernetes-models', are checked for what their operators
// need and for their references: each names objects the same render holds (ADR 0064).
import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';

const here = path.dirname(fileURLToPath(import.meta.url));

/** kubernetes-models' module of an apiVersion: `apps/v1` → `kubernetes-models/apps/v1`, `v1` → `kubernetes-models/v1`. */
async function modelOf(apiVersion, kind) {
  const models = await import(`kubernetes-models/${apiVersion}`).catch(() => null);
  return models?.[kind] ?? null;
}

const sources = process.argv.slice(2).length
  ? process.argv.slice(2).map((file) => ({ name: file, text: readFileSync(file, 'utf8') }))
  : readdirSync(path.join(here, 'overlays')).map((overlay) => ({
      name: `overlays/${overlay}`,
      text: execFileSync('kubectl', ['kustomize', path.join(here, 'overlays', overlay)], { encoding: 'utf8' }),
    }));

/** The pod template of a workload, or null for any other object. */
const podOf = (object) => (object.kind === 'Job' || object.kind === 'Deployment' || object.kind === 'StatefulSet' ? object.spec?.template?.spec : null);

/** Problems of the secret layout across one rendered overlay's objects. */
function secretLayoutProblems(name, objects) {
  const found = [];
  const readers = new Map();
  const read = (secret, workload) => readers.set(secret, new Set([...(readers.get(secret) ?? []), workload]));
  for (const object of objects) {
    const pod = podOf(object);
    if (!pod) continue;
    const workload = `${object.kind}/${object.metadata.name}`;
    const secretVolumes = new Map((pod.volumes ?? []).filter((v) => v.secret).map((v) => [v.name, v.secret]));
    for (const secret of secretVolumes.values()) read(secret.secretName, workload);
    for (const container of [...(pod.initContainers ?? []), ...(pod.containers ?? [])]) {
      const files = new Set();
      for (const mount of container.volumeMounts ?? []) {
        const secret = secretVolumes.get(mount.name);
        for (const item of secret?.items ?? []) files.add(`${mount.mountPath}/${item.path}`);
      }
      for (const from of container.envFrom ?? []) {
        if (from.secretRef) found.push(`${name}: ${workload}: loads the whole Secret ${from.secretRef.name} into its environment; mount its own keys as files`);
      }
      for (const variable of container.env ?? []) {
        const ref = variable.valueFrom?.secretKeyRef;
        if (ref) read(ref.name, workload);
        if (variable.name.endsWith('_FILE') && variable.value?.startsWith('/run/secrets/') && !files.has(variable.value)) {
          found.push(`${name}: ${workload}: ${variable.name} names ${variable.value}, which no Secret of its own mounts`);
        }
      }
    }
  }
  for (const [secret, workloads] of readers) {
    if (workloads.size > 1) found.push(`${name}: Secret ${secret} is read by ${[...workloads].sort().join(' and ')}; each workload gets its own`);
  }
  return found;
}

/** Whether `value` is a non-empty string. */
const named = (value) => typeof value === 'string' && value.length > 0;

/**
 * What each custom resource must hold, as problems (none when it holds it). `has(kind, name)` asks
 * whether the render holds that object.
 */
const CUSTOM_RESOURCES = {
  'postgresql.cnpg.io/v1 Cluster': (o) => [
    !(Number.isInteger(o.spec?.instances) && o.spec.instances >= 1) && 'spec.instances must be a whole number of instances',
    !named(o.spec?.storage?.size) && 'spec.storage.size is required',
  ],
  'postgresql.cnpg.io/v1 Pooler': (o, has) => [
    !has('Cluster', o.spec?.cluster?.name) && `spec.cluster names ${o.spec?.cluster?.name}, which this render does not hold`,
    !['rw', 'ro'].includes(o.spec?.type) && 'spec.type must be rw or ro',
    !['session', 'transaction'].includes(o.spec?.pgbouncer?.poolMode) && 'spec.pgbouncer.poolMode must be session or transaction',
  ],
  'rabbitmq.com/v1beta1 RabbitmqCluster': (o) => [!(Number.isInteger(o.spec?.replicas) && o.spec.replicas >= 1) && 'spec.replicas must be a whole number of nodes'],
  'rabbitmq.com/v1beta1 User': (o, has) => [
    !has('RabbitmqCluster', o.spec?.rabbitmqClusterReference?.name) && `spec.rabbitmqClusterReference names ${o.spec?.rabbitmqClusterReference?.name}, which this render does not hold`,
    !named(o.spec?.importCredentialsSecret?.name) && 'spec.importCredentialsSecret.name is required (a generated password would be nobody\'s to read)',
  ],
  'rabbitmq.com/v1beta1 Permission': (o, has) => [
    !has('RabbitmqCluster', o.spec?.rabbitmqClusterReference?.name) && `spec.rabbitmqClusterReference names ${o.spec?.rabbitmqClusterReference?.name}, which this render does not hold`,
    !has('User', o.spec?.userReference?.name) && `spec.userReference names ${o.spec?.userReference?.name}, which this render does not hold`,
    !['configure', 'write', 'read'].every((k) => typeof o.spec?.permissions?.[k] === 'string') && 'spec.permissions needs configure, write and read',
  ],
  'rabbitmq.com/v1beta1 TopicPermission': (o, has) => [
    !has('RabbitmqCluster', o.spec?.rabbitmqClusterReference?.name) && `spec.rabbitmqClusterReference names ${o.spec?.rabbitmqClusterReference?.name}, which this render does not hold`,
    !has('User', o.spec?.userReference?.name) && `spec.userReference names ${o.spec?.userReference?.name}, which this render does not hold`,
    !['exchange', 'write', 'read'].every((k) => typeof o.spec?.permissions?.[k] === 'string') && 'spec.permissions needs exchange, write and read',
  ],
};

/** The Services an operator makes for a custom resource: CloudNativePG's per cluster and per pooler, RabbitMQ's client Service. */
function operatorServices(object) {
  if (object.kind === 'Cluster' && object.apiVersion === 'postgresql.cnpg.io/v1') return ['rw', 'ro', 'r'].map((role) => `${object.metadata.name}-${role}`);
  if (object.kind === 'Pooler' || object.kind === 'RabbitmqCluster') return [object.metadata.name];
  return [];
}

/** The Secrets a custom resource has its operator read. */
const secretsOf = (object) => [object.spec?.superuserSecret?.name, object.spec?.importCredentialsSecret?.name, object.spec?.bootstrap?.initdb?.secret?.name].filter(named);

/** Problems of the references in one render: custom resources, Ingress backends, ExternalNames into the cluster, Secrets. */
function referenceProblems(name, objects) {
  const found = [];
  const has = (kind, target) => objects.some((o) => o.kind === kind && o.metadata?.name === target);
  const services = new Map(objects.filter((o) => o.kind === 'Service').map((o) => [o.metadata.name, o]));
  const madeServices = new Set([...services.keys(), ...objects.flatMap(operatorServices)]);
  const workloadSecrets = new Set(objects.flatMap((o) => (podOf(o)?.volumes ?? []).filter((v) => v.secret).map((v) => v.secret.secretName)));
  for (const object of objects) {
    const where = `${name}: ${object.kind}/${object.metadata?.name}`;
    const check = CUSTOM_RESOURCES[`${object.apiVersion} ${object.kind}`];
    if (check) for (const problem of check(object, has).filter(Boolean)) found.push(`${where}: ${problem}`);
    for (const secret of secretsOf(object)) {
      if (workloadSecrets.has(secret)) found.push(`${where}: reads the Secret ${secret}, which a workload mounts; each Secret has one reader`);
    }
    if (object.kind === 'Ingress') {
      const backends = (object.spec?.rules ?? []).flatMap((rule) => (rule.http?.paths ?? []).map((p) => p.backend?.service));
      for (const backend of backends) {
        const target = services.get(backend?.name);
        const port = target?.spec?.ports?.find((p) => (backend.port?.name ? p.name === backend.port.name : p.port === backend.port?.number));
        if (!port) found.push(`${where}: routes to ${backend?.name}:${backend?.port?.name ?? backend?.port?.number}, which no Service of this render serves`);
      }
    }
    // an ExternalName into the cluster (`<service>.<namespace>.svc.cluster.local`) names a Service this render makes, itself or through an operator
    const inCluster = object.kind === 'Service' && /^([a-z0-9-]+)\.[a-z0-9-]+\.svc\.cluster\.local$/.exec(object.spec?.externalName ?? '');
    if (inCluster && !madeServices.has(inCluster[1])) found.push(`${where}: points at ${object.spec.externalName}, a Service nothing in this render makes`);
  }
  return found;
}

const problems = [];
const counts = {};
for (const { name, text } of sources) {
  let objects = 0;
  const rendered = [];
  for (const doc of parseAllDocuments(text)) {
    const object = doc.toJS();
    if (!object) continue;
    objects++;
    rendered.push(object);
    const where = `${name}: ${object.kind}/${object.metadata?.name}`;
    if (CUSTOM_RESOURCES[`${object.apiVersion} ${object.kind}`]) continue;
    const Model = await modelOf(object.apiVersion, object.kind);
    if (!Model) {
      problems.push(`${where}: no schema for ${object.apiVersion} ${object.kind}`);
      continue;
    }
    // kustomize wraps long base64 values over lines, which the API server's decoder skips
    if (object.kind === 'Secret' && object.data) {
      for (const key of Object.keys(object.data)) object.data[key] = String(object.data[key]).replace(/\s+/g, '');
    }
    try {
      new Model(object).validate();
    } catch (err) {
      problems.push(`${where}: ${err.message.split('\n').slice(0, 3).join(' ')}`);
    }
  }
  problems.push(...secretLayoutProblems(name, rendered), ...referenceProblems(name, rendered));
  counts[name] = objects;
}
process.stdout.write(`${JSON.stringify({ objects: counts, problems })}\n`);
if (problems.length > 0) process.exit(1);
