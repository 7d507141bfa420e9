export interface PublishedResults {
  name: string;
  at: string;
  machine: { commit: string; cores: number; loadAverage: number[] };
  sections: { title: string; table: string }[];
}
export function renderResults(results: PublishedResults): string;
export function replaceBlock(doc: string, name: string, body: string): string | undefined;
export function renderTargets(allResults: readonly (PublishedResults & { targets?: { name: string; goal: string; measured: string; met: boolean | undefined }[] })[]): string;
export function renderMachine(m: { cores: number; cpu: string; memoryGb: number; platform: string; node: string; measuredBy: string }): string;
