/**
 * The step graph: `needs` edges (explicit, and inferred from references). Steps run in
 * topological order; among steps that are ready at the same time, manifest order wins, so the
 * order is stable and matches what the user wrote wherever dependencies allow.
 */
export interface GraphNode {
  id: string;
  needs: readonly string[];
}

export function topologicalOrder(nodes: readonly GraphNode[]): { order: string[]; cycles: string[][] } {
  const known = new Set(nodes.map((n) => n.id));
  const pending = new Map(nodes.map((n) => [n.id, new Set(n.needs.filter((d) => known.has(d)))]));
  const order: string[] = [];
  for (;;) {
    const ready = nodes.find((n) => pending.get(n.id)?.size === 0 && !order.includes(n.id));
    if (!ready) break;
    order.push(ready.id);
    pending.delete(ready.id);
    for (const deps of pending.values()) deps.delete(ready.id);
  }
  return { order, cycles: order.length === nodes.length ? [] : findCycles(nodes, new Set(pending.keys())) };
}

/** One cycle per strongly tied group, as the path a → b → a, starting at its earliest step. */
function findCycles(nodes: readonly GraphNode[], stuck: Set<string>): string[][] {
  const byId = new Map(nodes.map((n) => [n.id, n]));
  const reported = new Set<string>();
  const cycles: string[][] = [];
  for (const start of nodes) {
    if (!stuck.has(start.id) || reported.has(start.id)) continue;
    const cycle = walkBack(start.id, byId, stuck);
    if (cycle && !cycle.some((id) => reported.has(id))) {
      cycle.forEach((id) => reported.add(id));
      cycles.push([...cycle, cycle[0] as string]);
    }
  }
  return cycles;
}

/** Follows needs from `start` until a step repeats; returns the loop found. */
function walkBack(start: string, byId: Map<string, GraphNode>, stuck: Set<string>): string[] | undefined {
  const path: string[] = [];
  let current: string | undefined = start;
  while (current !== undefined && !path.includes(current)) {
    path.push(current);
    current = byId.get(current)?.needs.find((d) => stuck.has(d));
  }
  return current === undefined ? undefined : path.slice(path.indexOf(current));
}
