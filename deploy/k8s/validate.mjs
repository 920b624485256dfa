#!/usr/bin/env node
// Renders each overlay with `kubectl kustomize` (or reads the YAML files given) and checks every
// object against the Kubernetes schemas (kubernetes-models); prints one line per problem, exits 1
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

const problems = [];
const counts = {};
for (const { name, text } of sources) {
  let objects = 0;
  for (const doc of parseAllDocuments(text)) {
    const object = doc.toJS();
    if (!object) continue;
    objects++;
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
  counts[name] = objects;
}
process.stdout.write(`${JSON.stringify({ objects: counts, problems })}\n`);
if (problems.length > 0) process.exit(1);
