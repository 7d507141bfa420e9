export interface Summary { min: number; median: number; max: number; runs: number }
export interface SandboxStats {
  requests: Record<string, number>;
  created: Record<string, number>;
  duplicates: { total: number; byKind: Record<string, number> };
  webhooks: { delivered: number; failed: number; blocked: number };
}
export interface SandboxJob { kind: string; id: string; status: string; created_at: string; history: { status: string; at: string }[] }
export interface RequestCounts { api: number; downloads: number; other: number; byRoute: Record<string, number> }
export interface ServiceTiming {
  jobs: number; unfinished: number; failed: number; lifeMs: number; idealMs: number; firstCreatedMs: number; lastFinishedMs: number;
}
export function median(values: readonly number[]): number;
export function summarise(values: readonly number[]): Summary;
export function routeClass(route: string): 'api' | 'downloads' | 'introspection' | 'other';
export function requestCounts(before: Pick<SandboxStats, 'requests'> | undefined, after: Pick<SandboxStats, 'requests'>): RequestCounts;
export function serviceTiming(jobs: readonly SandboxJob[], capacity: number): ServiceTiming;
