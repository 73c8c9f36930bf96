/** The few Node names the tests use to read files and record figures (the project has no
 * Node types). */
declare const __dirname: string;
declare module "node:fs" {
  export function readFileSync(path: string, encoding: "utf8"): string;
  export function appendFileSync(path: string, data: string, encoding: "utf8"): void;
}
declare module "node:path" {
  export function resolve(...parts: string[]): string;
}
declare const process: {
  env: Record<string, string | undefined>;
  cpuUsage(since?: { user: number; system: number }): { user: number; system: number };
};
