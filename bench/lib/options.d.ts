export function isQuick(argv?: readonly string[]): boolean;
export function sized<T>(full: T, quick: T, argv?: readonly string[]): T;
export function listOption(name: string, argv?: readonly string[]): string[] | undefined;
