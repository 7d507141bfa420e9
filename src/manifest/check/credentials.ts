import { isMap, isPair, isScalar, visit, type Document } from 'yaml';

/**
 * Credentials never live in a manifest: manifests are committed, shared and printed in plans.
 * The service's X-API-ID / X-API-KEY come only from the environment.
 */
export const CREDENTIAL_ENV = ['REELPIPE_API_ID', 'REELPIPE_API_KEY'] as const;
export const CREDENTIAL_MESSAGE =
  'credentials never go in a manifest: set REELPIPE_API_ID and REELPIPE_API_KEY in the environment';

const CREDENTIAL_KEY = /^(x[-_]?)?api[-_]?(id|key|secret|token)$|^(api_?)?secret$|^password$/i;

export const looksLikeCredential = (key: string) => CREDENTIAL_KEY.test(key);

/** Every map key anywhere in the document that looks like a credential, with its YAML path. */
export function credentialKeys(doc: Document): (string | number)[][] {
  const found: (string | number)[][] = [];
  visit(doc, {
    Pair(_, pair, path) {
      if (!isPair(pair) || !isScalar(pair.key) || !looksLikeCredential(String(pair.key.value))) return;
      found.push([...pathOf(path), String(pair.key.value)]);
    },
  });
  return found;
}

/** Turns yaml's ancestor list into a key path (map keys and sequence indexes). */
function pathOf(ancestors: readonly unknown[]): (string | number)[] {
  const path: (string | number)[] = [];
  for (let i = 0; i < ancestors.length; i++) {
    const node = ancestors[i];
    const next = ancestors[i + 1];
    if (isPair(node) && isScalar(node.key)) path.push(String(node.key.value));
    else if (next !== undefined && !isMap(node) && node && typeof node === 'object' && 'items' in node) {
      const index = (node as { items: unknown[] }).items.indexOf(next);
      if (index >= 0) path.push(index);
    }
  }
  return path;
}
