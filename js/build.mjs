// Bundles the widget into the Python package, where the anywidget class reads it.
//
// Beside the bundle it writes a digest of the sources it was built from
// (bundle-sources.sha256). The Python build hook (hatch_build.py) computes the same
// digest to tell whether a bundle is current without trusting file times, which an
// unpacked sdist or a fresh clone does not keep.
import { build } from "esbuild";
import { createHash } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const outdir = resolve(here, "../src/pausepoint/widget/static");
const outfile = resolve(outdir, "widget.js");
const stampfile = resolve(outdir, "bundle-sources.sha256");

function filesUnder(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    return entry.isDirectory() ? filesUnder(path) : entry.isFile() ? [path] : [];
  });
}

// Keep in step with `sources_digest` in hatch_build.py: the sorted js/-relative paths of
// package.json, package-lock.json, build.mjs and every file under src/, each followed by
// a NUL, the SHA-256 of its bytes in hex and a newline, hashed with SHA-256.
function sourcesDigest() {
  const paths = [
    "package.json",
    "package-lock.json",
    "build.mjs",
    ...filesUnder(join(here, "src")).map((p) => relative(here, p).split(sep).join("/")),
  ].sort();
  const digest = createHash("sha256");
  for (const path of paths) {
    const content = createHash("sha256").update(readFileSync(join(here, path))).digest("hex");
    digest.update(`${path}\0${content}\n`);
  }
  return digest.digest("hex");
}

const digest = sourcesDigest();
mkdirSync(outdir, { recursive: true });

const result = await build({
  entryPoints: [resolve(here, "src/index.ts")],
  outfile,
  bundle: true,
  format: "esm",
  jsx: "automatic",
  jsxImportSource: "preact",
  minify: true,
  target: ["es2020"],
  legalComments: "none",
  metafile: true,
  logLevel: "warning",
});
writeFileSync(stampfile, `${digest}\n`);

for (const [file, info] of Object.entries(result.metafile.outputs)) {
  console.log(`${file.replace(/^.*\/src\//, "src/")}  ${(info.bytes / 1024).toFixed(1)} KiB`);
}
