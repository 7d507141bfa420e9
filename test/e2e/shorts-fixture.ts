/**
 * The manifest the progress, log and output-flag tests run: one AI Short per SKU of scripts.csv,
 * labelled `short-SKU`, written to `out-NAME`. `top` adds top-level YAML (a budget, a
 * concurrency); `steps` more steps.
 */
export function shortsManifest(name: string, options: { top?: string; steps?: string } = {}): string {
  return `
version: 1
name: ${name}
outputs: out-${name}
${options.top ?? ''}
steps:
  - id: shorts
    kind: ai_short
    for_each: { csv: scripts.csv }
    name: "short-{{ row.sku }}"
    with: { script: "{{ row.script }}", style: Cinematic, aspect_ratio: 9x16 }
${options.steps ?? ''}`;
}

/** scripts.csv with a row per SKU. @default skus TR-1, TR-2, TR-3 */
export const scriptsCsv = (skus = ['TR-1', 'TR-2', 'TR-3']) => `sku,script\n${skus.map((sku) => `${sku},The ${sku} holds on wet rock.`).join('\n')}\n`;
