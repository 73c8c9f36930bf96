// Bundles the widget into the Python package, where the anywidget class reads it.
import { build } from "esbuild";
import { mkdirSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const outfile = resolve(here, "../src/pausepoint/widget/static/widget.js");
mkdirSync(dirname(outfile), { recursive: true });

const result = await build({
  entryPoints: [resolve(here, "src/index.ts")],
  outfile,
  bundle: true,
  format: "esm",
  minify: true,
  target: ["es2020"],
  legalComments: "none",
  metafile: true,
  logLevel: "warning",
});

for (const [file, info] of Object.entries(result.metafile.outputs)) {
  console.log(`${file.replace(/^.*\/src\//, "src/")}  ${(info.bytes / 1024).toFixed(1)} KiB`);
}
