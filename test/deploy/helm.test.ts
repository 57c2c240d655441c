// The Helm chart (deploy/helm/catalogue-api), offline: `helm lint --strict` and
// `helm template` with the chart's defaults and with every example values file,
// every rendered manifest checked against the Kubernetes schemas (the oldest
// release the chart supports and the newest kubernetes-validate knows) and the
// CloudNativePG ones against the operator's CRDs (validate-manifests.py).
// Then what the schemas cannot know: the probes answer on the API's real
// routes and port, the grace period outlasts the drain deadline the pods are
// configured with, every setting is one src/config.ts reads (secrets only in
// the Secret), the configuration the pods get is valid, the migrations Job is a
// hook running package.json's command, and the database URLs of the
// CloudNativePG example reach the pooler, the primary and each instance.
//
// scripts/kube-tools.sh installs helm, kubernetes-validate and the CRDs (.ci/run
// runs it). Locally without them the test is skipped with a message; in CI
// (CI=true) a missing tool is a failure.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { configVariables, secretVariables } from '../support/config-variables.ts';
import { createTestClient, type TestClient } from '../support/catalogue-app.ts';
import { createTestDatabase, type TestDatabase } from '../support/db.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const CHART = path.join(ROOT, 'deploy/helm/catalogue-api');
const EXAMPLES = path.join(ROOT, 'deploy/helm/examples');
const CACHE = path.join(os.homedir(), '.cache/catalogue-api');
const HELM = process.env.HELM ?? path.join(CACHE, 'bin/helm');
const PYTHON = path.join(CACHE, 'kubernetes-validate-venv/bin/python');
const CRD_DIR = path.join(CACHE, 'cnpg-crds');
const VALIDATE = path.join(import.meta.dirname, 'validate-manifests.py');

const missing = [
  ...(spawnSync(HELM, ['version', '--short']).status === 0 ? [] : [HELM]),
  ...(spawnSync(PYTHON, ['-c', 'import kubernetes_validate']).status === 0 ? [] : [PYTHON]),
  ...(fs.existsSync(path.join(CRD_DIR, 'VERSION')) ? [] : [CRD_DIR]),
];
const inCi = process.env.CI === 'true' || process.env.CI === '1';
if (missing.length > 0 && !inCi) {
  console.warn(`not installed: ${missing.join(', ')}: skipping test/deploy/helm.test.ts (run scripts/kube-tools.sh; .ci/run does)`);
}

const packageScripts = (JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
const chartValues = fs.readFileSync(path.join(CHART, 'values.yaml'), 'utf8');
/** The oldest Kubernetes the chart declares (Chart.yaml kubeVersion ">=1.30.0-0"). */
const MIN_KUBERNETES = /^kubeVersion: ">=(\d+\.\d+\.\d+)/m.exec(fs.readFileSync(path.join(CHART, 'Chart.yaml'), 'utf8'))?.[1];

interface Case { name: string; files: string[]; set: string[] }
const DATABASE_URL = 'secrets.DATABASE_URL=postgresql://catalogue:change-me@catalogue-postgres:5432/catalogue';
const CASES: Case[] = [
  { name: 'defaults', files: [], set: [DATABASE_URL] },
  { name: 'CloudNativePG', files: ['values-cloudnativepg.yaml'], set: [] },
  { name: 'Redis Sentinel', files: ['values-redis-sentinel.yaml'], set: [DATABASE_URL] },
  { name: 'CloudNativePG and Redis Sentinel', files: ['values-cloudnativepg.yaml', 'values-redis-sentinel.yaml'], set: [] },
  {
    name: 'an existing Secret, fixed replicas, a catalogue from a volume',
    files: [],
    set: ['existingSecret=catalogue-secrets', 'autoscaling.enabled=false', 'dataLoad.enabled=true', 'dataLoad.persistentVolumeClaim=legacy-csv', 'dataLoad.replace=true', 'ingress.enabled=true'],
  },
];

// Kubernetes objects, loosely typed: the schemas have checked their shape.
type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

interface Rendered { documents: Json[]; problems: string[] }

function helm(args: string[]): string {
  const result = spawnSync(HELM, args, { encoding: 'utf8', maxBuffer: 64 << 20 });
  if (result.status !== 0) throw new Error(`helm ${args.join(' ')} failed:\n${result.stdout}${result.stderr}`);
  return result.stdout;
}

function valueArgs(c: Case): string[] {
  return [...c.files.flatMap((file) => ['-f', path.join(EXAMPLES, file)]), ...c.set.flatMap((s) => ['--set', s])];
}

function render(c: Case): Rendered {
  const manifests = helm(['template', 'catalogue', CHART, '--namespace', 'shop', '--kube-version', MIN_KUBERNETES!, ...valueArgs(c)]);
  const crds = fs.readdirSync(CRD_DIR).filter((f) => f.endsWith('.yaml')).flatMap((f) => ['--crd', path.join(CRD_DIR, f)]);
  const result = spawnSync(PYTHON, [VALIDATE, '--kubernetes-version', MIN_KUBERNETES!, '--kubernetes-version', 'latest', ...crds], { input: manifests, encoding: 'utf8', maxBuffer: 64 << 20 });
  if (result.status !== 0) throw new Error(`validate-manifests.py failed:\n${result.stderr}`);
  return JSON.parse(result.stdout) as Rendered;
}

const find = (documents: Json[], kind: string, component?: string) =>
  documents.filter((d) => d.kind === kind && (component === undefined || d.metadata.labels?.['app.kubernetes.io/component'] === component));
const one = (documents: Json[], kind: string, component?: string): Json => {
  const found = find(documents, kind, component);
  expect(found, `one ${kind}${component ? ` (${component})` : ''}`).toHaveLength(1);
  return found[0]!;
};

/**
 * The environment a container of the pod template sees, as Kubernetes builds it:
 * envFrom (the rendered ConfigMap and Secret; an existing Secret gives
 * `DATABASE_URL` only), then env with $(VAR) expanded; a key of a secret the
 * operator or CloudNativePG makes reads as a stand-in.
 */
function containerEnv(documents: Json[], container: Json): Record<string, string> {
  const env: Record<string, string> = {};
  for (const from of container.envFrom ?? []) {
    if (from.configMapRef) Object.assign(env, documents.find((d) => d.kind === 'ConfigMap' && d.metadata.name === from.configMapRef.name)?.data);
    if (from.secretRef) {
      const secret = documents.find((d) => d.kind === 'Secret' && d.metadata.name === from.secretRef.name);
      Object.assign(env, secret ? secret.stringData : { DATABASE_URL: 'postgresql://catalogue:stand-in@existing-secret:5432/catalogue' });
    }
  }
  for (const entry of container.env ?? []) {
    const ref = entry.valueFrom?.secretKeyRef;
    env[entry.name] = ref ? `secret${ref.name.replaceAll('-', '')}${ref.key}` : String(entry.value).replace(/\$\((\w+)\)/g, (_, name: string) => env[name] ?? `$(${name})`);
  }
  return env;
}

/** Names a container's env defines only to be expanded into other values ($(NAME)). */
function interpolationInputs(container: Json): Set<string> {
  return new Set((container.env ?? []).flatMap((entry: Json) => [...String(entry.value ?? '').matchAll(/\$\((\w+)\)/g)].map((m) => m[1]!)));
}

const hostOf = (url: string) => new URL(url).hostname;

describe.skipIf(missing.length > 0 && !inCi)('Helm chart', () => {
  it('has the tools (scripts/kube-tools.sh installs them)', () => {
    expect(missing).toEqual([]);
    expect(MIN_KUBERNETES).toMatch(/^1\.\d+\.0$/);
  });

  it('renders every example values file', () => {
    const examples = fs.readdirSync(EXAMPLES).filter((f) => f.endsWith('.yaml'));
    expect(examples.length).toBeGreaterThanOrEqual(2);
    for (const example of examples) expect(CASES.some((c) => c.files.includes(example)), example).toBe(true);
  });

  it('refuses to render without a database', () => {
    const result = spawnSync(HELM, ['template', 'catalogue', CHART, '--kube-version', MIN_KUBERNETES!], { encoding: 'utf8' });
    expect(result.status).not.toBe(0);
    expect(result.stderr).toContain('no database: set secrets.DATABASE_URL, existingSecret');
  });

  it('writes out the drain deadline of src/config.ts in values.yaml (the grace period is derived from it)', () => {
    expect(/^ {2}SHUTDOWN_TIMEOUT_MS: "(\d+)"$/m.exec(chartValues)?.[1]).toBe(String(loadConfig({}).shutdownTimeoutMs));
  });

  describe.each(CASES)('$name', (c) => {
    let rendered: Rendered;
    beforeAll(() => {
      helm(['lint', '--strict', CHART, '--kube-version', MIN_KUBERNETES!, ...valueArgs(c)]);
      rendered = render(c);
    });

    it('passes helm lint, and every manifest matches its schema', () => {
      expect(rendered.problems).toEqual([]);
      expect(rendered.documents.length).toBeGreaterThan(5);
    });

    it('has a Deployment, Service, HorizontalPodAutoscaler or fixed replicas, PodDisruptionBudget and ConfigMap that fit together', () => {
      const docs = rendered.documents;
      const deployment = one(docs, 'Deployment');
      const podLabels = deployment.spec.template.metadata.labels;
      for (const [key, value] of Object.entries(deployment.spec.selector.matchLabels)) expect(podLabels[key]).toBe(value);
      const apiService = docs.find((d) => d.kind === 'Service' && d.metadata.name === deployment.metadata.name)!;
      expect(apiService.spec.selector).toEqual(deployment.spec.selector.matchLabels);
      expect(apiService.spec.ports[0].targetPort).toBe('http');
      const pdb = one(docs, 'PodDisruptionBudget');
      expect(pdb.spec.selector.matchLabels).toEqual(deployment.spec.selector.matchLabels);
      const hpas = find(docs, 'HorizontalPodAutoscaler');
      if (hpas.length > 0) {
        expect(hpas[0]!.apiVersion).toBe('autoscaling/v2');
        expect(hpas[0]!.spec.scaleTargetRef).toEqual({ apiVersion: 'apps/v1', kind: 'Deployment', name: deployment.metadata.name });
        expect(deployment.spec.replicas).toBeUndefined();
      } else {
        expect(deployment.spec.replicas).toBeGreaterThan(1);
      }
      expect(deployment.spec.template.spec.containers[0].resources.requests).toEqual(expect.objectContaining({ cpu: expect.anything(), memory: expect.anything() }));
      const ingresses = find(docs, 'Ingress');
      for (const ingress of ingresses) {
        for (const rule of ingress.spec.rules) for (const p of rule.http.paths) expect(p.backend.service).toEqual({ name: apiService.metadata.name, port: { name: 'http' } });
      }
    });

    it('probes the API on its port, and outlasts its drain deadline before SIGKILL', () => {
      const deployment = one(rendered.documents, 'Deployment');
      const pod = deployment.spec.template.spec;
      const container = pod.containers[0];
      const config = loadConfig(containerEnv(rendered.documents, container));
      const http = container.ports.find((p: Json) => p.name === 'http');
      expect(http.containerPort).toBe(config.port);
      expect(container.livenessProbe.httpGet).toEqual({ path: '/healthz', port: 'http' });
      expect(container.readinessProbe.httpGet).toEqual({ path: '/readyz', port: 'http' });
      expect(container.startupProbe.httpGet).toEqual({ path: '/healthz', port: 'http' });
      // The kubelet runs preStop, then sends SIGTERM; the API drains for up to
      // SHUTDOWN_TIMEOUT_MS; SIGKILL comes terminationGracePeriodSeconds after preStop began.
      const preStopMs = (container.lifecycle?.preStop?.sleep?.seconds ?? 0) * 1000;
      expect(config.shutdownTimeoutMs).toBeGreaterThan(0);
      expect(pod.terminationGracePeriodSeconds * 1000).toBeGreaterThan(preStopMs + config.shutdownTimeoutMs);
    });

    it('sets only settings src/config.ts reads, secrets only from Secrets, and a valid configuration', () => {
      const known = configVariables();
      const secrets = secretVariables();
      const configMap = one(rendered.documents, 'ConfigMap');
      expect(Object.keys(configMap.data).filter((key) => !known.has(key))).toEqual([]);
      expect(Object.keys(configMap.data).filter((key) => secrets.has(key))).toEqual([]);
      for (const secret of find(rendered.documents, 'Secret')) expect(Object.keys(secret.stringData).filter((key) => !known.has(key))).toEqual([]);
      const pods = [one(rendered.documents, 'Deployment'), ...find(rendered.documents, 'Job')].map((d) => d.spec.template.spec);
      for (const pod of pods) {
        for (const container of pod.containers) {
          const inputs = interpolationInputs(container);
          for (const entry of container.env ?? []) {
            expect(known.has(entry.name) || inputs.has(entry.name), `${entry.name} is a setting or expanded into one`).toBe(true);
            // A secret is never written into the pod spec: it comes from a Secret, or is expanded from one.
            if (secrets.has(entry.name) && entry.value !== undefined) expect(entry.value).toMatch(/\$\(\w+\)/);
          }
          expect(() => loadConfig(containerEnv(rendered.documents, container))).not.toThrow();
        }
      }
    });

    it('runs package.json\'s migrate command as a pre-upgrade hook, before pods start on install unless the release makes the database', () => {
      const job = one(rendered.documents, 'Job', 'migrate');
      const annotations = job.metadata.annotations;
      const makesDatabase = find(rendered.documents, 'Cluster').length > 0;
      expect(annotations['helm.sh/hook'].split(',').sort()).toEqual([makesDatabase ? 'post-install' : 'pre-install', 'pre-upgrade'].sort());
      expect(annotations['helm.sh/hook-delete-policy']).toContain('before-hook-creation');
      const container = job.spec.template.spec.containers[0];
      expect(container.command.join(' ')).toBe(packageScripts['db:migrate']);
      expect(job.spec.template.spec.restartPolicy).toBe('Never');
      // The chart's Secret is made before the Job that needs it.
      for (const secret of find(rendered.documents, 'Secret')) {
        expect(secret.metadata.annotations['helm.sh/hook']).toContain('pre-upgrade');
        expect(Number(secret.metadata.annotations['helm.sh/hook-weight'])).toBeLessThan(Number(annotations['helm.sh/hook-weight']));
      }
    });

    it('loads a catalogue with package.json\'s data:load command when asked', () => {
      const jobs = find(rendered.documents, 'Job', 'data-load');
      for (const job of jobs) {
        const script = job.spec.template.spec.containers[0].command.join(' ');
        expect(script).toContain(`${packageScripts['data:load']} --dir `);
        const claim = job.spec.template.spec.volumes.find((v: Json) => v.persistentVolumeClaim);
        if (claim) expect(script).not.toContain('generate');
        else expect(script).toContain(packageScripts['data:generate']);
      }
      expect(jobs.length).toBe(c.set.includes('dataLoad.enabled=true') || c.files.includes('values-cloudnativepg.yaml') ? 1 : 0);
    });

    it('routes the CloudNativePG example: writes through the pooler, LISTEN, migrations and ETL to the primary, reads to each instance', () => {
      const cluster = find(rendered.documents, 'Cluster')[0];
      if (!cluster) return;
      const name = cluster.metadata.name;
      const pooler = one(rendered.documents, 'Pooler');
      expect(pooler.spec.cluster.name).toBe(name);
      expect(pooler.spec.pgbouncer.poolMode).toBe('transaction');
      const instances = find(rendered.documents, 'Service', 'database-instance');
      expect(instances).toHaveLength(cluster.spec.instances);
      expect(cluster.spec.instances).toBe(3);
      const api = containerEnv(rendered.documents, one(rendered.documents, 'Deployment').spec.template.spec.containers[0]);
      expect(hostOf(api.DATABASE_URL!)).toBe(pooler.metadata.name);
      // What needs a session (LISTEN, migrations' advisory lock) goes straight to the primary.
      expect(api.DATABASE_POOLER).toBe('transaction');
      expect(hostOf(api.DATABASE_DIRECT_URL!)).toBe(`${name}-rw`);
      expect(api.DATABASE_REPLICA_URLS!.split(',').map(hostOf)).toEqual(instances.map((s) => s.metadata.name));
      expect(instances.map((s) => s.spec.selector['cnpg.io/instanceName'])).toEqual([1, 2, 3].map((n) => `${name}-${n}`));
      // The password comes from the secret the operator makes, expanded by Kubernetes.
      expect(new URL(api.DATABASE_URL!).password).toBe(`secret${name.replaceAll('-', '')}apppassword`);
      for (const job of find(rendered.documents, 'Job')) {
        const env = containerEnv(rendered.documents, job.spec.template.spec.containers[0]);
        expect(hostOf(env.DATABASE_URL!), job.metadata.name).toBe(`${name}-rw`);
        expect(hostOf(env.DATABASE_DIRECT_URL!), job.metadata.name).toBe(`${name}-rw`);
      }
      // Read-your-writes across pods shares the write position in Redis: one server, or through Sentinels.
      expect(api.REDIS_URL ?? api.REDIS_SENTINELS).toBeDefined();
    });
  });
});

describe.skipIf(missing.length > 0 && !inCi)('Helm chart probes against the API', () => {
  let database: TestDatabase;
  let client: TestClient;
  beforeAll(async () => {
    database = await createTestDatabase();
    const rendered = render(CASES[0]!);
    const configMap = one(rendered.documents, 'ConfigMap');
    // The chart's own settings (production: probes answer anonymous callers too), on a test database.
    client = await createTestClient(database.url, { apiKey: false, nodeEnv: configMap.data.NODE_ENV, env: { ...configMap.data, LOG_LEVEL: 'silent' } });
  });
  afterAll(async () => {
    await client?.close();
    await database?.drop();
  });

  it('answers 200 on every probe path of the Deployment', async () => {
    const container = one(render(CASES[0]!).documents, 'Deployment').spec.template.spec.containers[0];
    const paths = new Set([container.livenessProbe, container.readinessProbe, container.startupProbe].map((probe: Json) => probe.httpGet.path as string));
    expect(paths.size).toBe(2);
    for (const probePath of paths) {
      expect((await client.injectAnonymous({ method: 'GET', url: probePath })).statusCode, probePath).toBe(200);
      // Not a catch-all: a path beside it is no route.
      expect((await client.injectAnonymous({ method: 'GET', url: `${probePath}x` })).statusCode).toBe(404);
    }
  });
});
