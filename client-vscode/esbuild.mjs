// Bundles the extension and its runtime dependencies into dist/extension.js, so the .vsix ships
// one file and no node_modules (`vsce package --no-dependencies`).
import { build } from "esbuild";

await build({
  entryPoints: ["src/extension.ts"],
  bundle: true,
  outfile: "dist/extension.js",
  external: ["vscode"],
  format: "cjs",
  platform: "node",
  target: "node20",
  sourcemap: true,
  minify: true,
  logLevel: "info",
});
