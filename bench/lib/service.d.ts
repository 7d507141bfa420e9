export const CLI: string;
export const CLI_NODE_ARGS: string[];
export interface Service {
  url: string;
  stats(): Promise<unknown>;
  jobs(): Promise<unknown>;
  stop(): Promise<void>;
}
export function startService(options: { speed: number; capacity: number; seed?: number }): Promise<Service>;
export function clientEnv(url: string): NodeJS.ProcessEnv;
