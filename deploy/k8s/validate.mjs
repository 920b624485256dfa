#!/usr/bin/env node
// Renders each overlay with `kubectl kustomize` (or reads the YAML files given) and checks every
// object against the Kubernetes schemas (kubernetes-models), and the secret layout (ADR 0055): no
// Secret read by two workloads, none loaded whole into the environment, and every secret file a
// container is told of (`X_FILE`) mounted from its own Secret. Prints one line per problem, exits 1
// when there is any. No cluster is needed.
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
  problems.push(...secretLayoutProblems(name, rendered));
  counts[name] = objects;
}
process.stdout.write(`${JSON.stringify({ objects: counts, problems })}\n`);
if (problems.length > 0) process.exit(1);
