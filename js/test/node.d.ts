/** The few Node names the stylesheet test reads files with (the project has no Node types). */
declare const __dirname: string;
declare module "node:fs" {
  export function readFileSync(path: string, encoding: "utf8"): string;
}
declare module "node:path" {
  export function resolve(...parts: string[]): string;
}
