// What the schema's descriptions say about HTTP statuses is what the server
// answers (issue 32: schema/base.graphql said a stale `expectedVersion` was
// "CONFLICT (HTTP 409)" and a reused idempotency key "IDEMPOTENCY_KEY_REUSED
// (HTTP 422)"; both were HTTP 200). Every "CODE (HTTP nnn…)" in a description
// of schema/ is read from the SDL, provoked on the field it describes against
// the server (real Postgres, held row locks), under both GraphQL media types,
// and the answer's status, error code, Retry-After and `data: null` (when the
// claim names them) must match. A claim with no way here to provoke it fails
// the test: add one.
import fs from 'node:fs';
import path from 'node:path';
import { type ASTNode, type DocumentNode, Kind, parse, visit } from 'graphql';
import { afterEach, describe, expect, it } from 'vitest';
import { SCHEMA_DIR } from '../../src/graphql/schema.ts';
import { type GraphQLResponse, useTestCatalogue, useTestClient } from '../support/catalogue-app.ts';
import { HeldLocks } from '../support/locks.ts';
import { CATALOGUE_WRITES_LOCK } from '../../src/db/writes/transaction.ts';

interface Claim {
  /** Where the description is: `Mutation.updateProduct(expectedVersion)`. */
  where: string;
  /** The root field the description belongs to (the field provoked). */
  field: string;
  code: string;
  status: number;
  retryAfter: boolean;
  dataNull: boolean;
  text: string;
}

const CLAIM = /\b([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*) \(HTTP (\d{3})([^)]*)\)/g;

function schemaFiles(directory: string): string[] {
  return fs.readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(directory, entry.name);
    if (entry.isDirectory()) return schemaFiles(full);
    return entry.name.endsWith('.graphql') ? [full] : [];
  });
}

/** Every status claim in the descriptions of `document`, with the type and field it is written on. */
function claimsOf(document: DocumentNode): Claim[] {
  const claims: Claim[] = [];
  const read = (node: ASTNode & { description?: { value: string } | undefined }, where: string, field: string) => {
    for (const match of node.description?.value.replace(/\s+/g, ' ').matchAll(CLAIM) ?? []) {
      claims.push({ where, field, code: match[1]!, status: Number(match[2]), retryAfter: /Retry-After/.test(match[3]!), dataNull: /data: null/.test(match[3]!), text: match[0] });
    }
  };
  visit(document, {
    enter(node, _key, _parent, _path, ancestors) {
      if ('name' in node && node.name && 'description' in node) {
        const owners = ancestors.filter((a): a is ASTNode => !Array.isArray(a) && typeof a === 'object' && a !== null && 'kind' in a);
        const type = owners.find((a) => a.kind === Kind.OBJECT_TYPE_DEFINITION || a.kind === Kind.OBJECT_TYPE_EXTENSION || a.kind === Kind.INPUT_OBJECT_TYPE_DEFINITION || a.kind === Kind.INTERFACE_TYPE_DEFINITION);
        const field = owners.find((a) => a.kind === Kind.FIELD_DEFINITION) as { name: { value: string } } | undefined;
        const typeName = type && 'name' in type ? type.name.value : '';
        if (node.kind === Kind.FIELD_DEFINITION) read(node, `${typeName}.${node.name.value}`, `${typeName}.${node.name.value}`);
        else if (node.kind === Kind.INPUT_VALUE_DEFINITION && field) read(node, `${typeName}.${field.name.value}(${node.name.value})`, `${typeName}.${field.name.value}`);
        else read(node, node.name.value, node.name.value);
      }
    },
  });
  return claims;
}

const claims = schemaFiles(SCHEMA_DIR).flatMap((file) => claimsOf(parse(fs.readFileSync(file, 'utf8'))));

const LOCK_TIMEOUT_MS = 300;
const catalogue = useTestCatalogue({ scale: 0.0001 });
const client = useTestClient(catalogue, { nodeEnv: 'production', env: { DATABASE_LOCK_TIMEOUT_MS: String(LOCK_TIMEOUT_MS) } });

const ACCEPTS = ['application/json', 'application/graphql-response+json'] as const;
const PRODUCT_INPUT = (name: string) => `{ name: "${name}", slogan: "s", description: "d", category: "Claims", defaultPrice: "10.00" }`;

let held: HeldLocks | undefined;
afterEach(async () => {
  await held?.release();
  held = undefined;
});

async function post(query: string, accept: string): Promise<GraphQLResponse> {
  return client.post(query, undefined, { headers: { accept } });
}

async function newProduct(accept: string): Promise<{ id: string; version: string }> {
  const created = await post(`mutation { createProduct(input: ${PRODUCT_INPUT('claims')}) { id version } }`, accept);
  expect(created.status).toBe(200);
  return created.body.data!.createProduct as { id: string; version: string };
}

/** A product whose version the caller read before it was changed: a stale `expectedVersion`. */
async function staleVersion(accept: string): Promise<{ id: string; version: string }> {
  const product = await newProduct(accept);
  const updated = await post(`mutation { updateProduct(id: "${product.id}", input: { slogan: "changed" }) { version } }`, accept);
  expect((updated.body.data!.updateProduct as { version: string }).version).not.toBe(product.version);
  return product;
}

/** How to make the server answer `code` on a root field: the response. */
const PROVOKE: Record<string, (accept: string) => Promise<GraphQLResponse>> = {
  'Mutation.updateProduct CONFLICT': async (accept) => {
    const { id, version } = await staleVersion(accept);
    return post(`mutation { updateProduct(id: "${id}", input: { name: "never" }, expectedVersion: "${version}") { id } }`, accept);
  },
  'Mutation.deleteProduct CONFLICT': async (accept) => {
    const { id, version } = await staleVersion(accept);
    return post(`mutation { deleteProduct(id: "${id}", expectedVersion: "${version}") }`, accept);
  },
  'Mutation.updateProduct BAD_USER_INPUT': async (accept) => {
    const { id } = await newProduct(accept);
    return post(`mutation { updateProduct(id: "${id}", input: { name: "never" }, expectedVersion: "garbage") { id } }`, accept);
  },
  'Mutation.deleteProduct BAD_USER_INPUT': async (accept) => {
    const { id } = await newProduct(accept);
    return post(`mutation { deleteProduct(id: "${id}", expectedVersion: "garbage") }`, accept);
  },
  'Mutation.createProduct IDEMPOTENCY_KEY_REUSED': async (accept) => {
    const key = `claims-${accept}-${Date.now()}`;
    const first = await post(`mutation { createProduct(input: ${PRODUCT_INPUT('first')}, idempotencyKey: "${key}") { id } }`, accept);
    expect(first.status).toBe(200);
    return post(`mutation { createProduct(input: ${PRODUCT_INPUT('other')}, idempotencyKey: "${key}") { id } }`, accept);
  },
  'Mutation.updateProduct CATALOGUE_RELOADING': async (accept) => {
    const { id } = await newProduct(accept);
    // What a data:load holds from its start to its swap's commit.
    held = await HeldLocks.take(catalogue.db.url, `SELECT pg_advisory_xact_lock(${CATALOGUE_WRITES_LOCK})`);
    return post(`mutation { updateProduct(id: "${id}", input: { name: "never" }) { id } }`, accept);
  },
  'Mutation.updateProduct WRITE_CONTENTION': async (accept) => {
    const { id } = await newProduct(accept);
    held = await HeldLocks.take(catalogue.db.url, `SELECT id FROM products WHERE id = ${Number(id)} FOR UPDATE`);
    return post(`mutation { updateProduct(id: "${id}", input: { name: "never" }) { id } }`, accept);
  },
};

describe('the HTTP statuses the schema\'s descriptions claim', () => {
  it('are found in the SDL (the reader works)', () => {
    expect(claims.length).toBeGreaterThanOrEqual(3);
    expect(new Set(claims.map((claim) => claim.code))).toContain('CONFLICT');
  });

  it.each(claims.flatMap((claim) => ACCEPTS.map((accept) => ({ ...claim, accept }))))('$where: "$text" under $accept', async (claim) => {
    const provoke = PROVOKE[`${claim.field} ${claim.code}`];
    if (!provoke) expect.fail(`nothing here provokes ${claim.code} on ${claim.field}: add it to PROVOKE`);
    const response = await provoke(claim.accept);
    expect(response.body.errors?.map((error) => error.extensions?.code)).toEqual([claim.code]);
    expect(response.status, claim.text).toBe(claim.status);
    if (claim.retryAfter) expect(response.headers['retry-after']).toMatch(/^\d+$/);
    if (claim.dataNull) expect(response.body).toHaveProperty('data', null);
  });
});
