#!/usr/bin/env node
// Live re-check of the checked-in known-answer fixtures.
//
//   node check_live.mjs [--fresh-out DIR] [--fresh-count K] [--fresh-seed S] [--ctest BUILD_DIR] [--no-fresh]
//
// 1. Regenerates every fixture with the seed and count recorded in the checked-in files (meta) into a
//    temporary directory and compares byte for byte; on a difference it prints which files and the
//    first differing JSON paths, and the exit status is 1.
// 2. Generates a fresh set with a random seed (or --fresh-seed) and a small count into --fresh-out
//    (default: a new temporary directory, kept) so the C++ tests can be run against values nobody has
//    seen before:  CUZK_VECTORS_DIR=<dir> ctest --test-dir <build> -R '[Vv]ectors' --no-tests=error
//    With --ctest BUILD_DIR this script runs that ctest command itself (exit status 1 if it fails).
import { execFileSync, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const GEN = path.join(HERE, "gen_vectors.mjs");

function parseArgs(argv) {
  const o = { freshOut: null, freshCount: 8, freshSeed: null, ctest: null, fresh: true };
  for (let i = 0; i < argv.length; ++i) {
    const a = argv[i];
    const val = () => {
      if (i + 1 >= argv.length) throw new Error(`${a} needs a value`);
      return argv[++i];
    };
    if (a === "--fresh-out") o.freshOut = path.resolve(val());
    else if (a === "--fresh-count") o.freshCount = Number(val());
    else if (a === "--fresh-seed") o.freshSeed = val();
    else if (a === "--ctest") o.ctest = path.resolve(val());
    else if (a === "--no-fresh") o.fresh = false;
    else if (a === "-h" || a === "--help") {
      console.log("usage: node check_live.mjs [--fresh-out DIR] [--fresh-count K] [--fresh-seed S] [--ctest BUILD_DIR] [--no-fresh]");
      process.exit(0);
    } else throw new Error(`unknown argument ${a}`);
  }
  return o;
}

// The fixture files: every *.json here except the npm manifests.
const fixtureNames = (dir) =>
  fs.readdirSync(dir).filter((f) => f.endsWith(".json") && !f.startsWith("package")).sort();

function generate(out, seed, count) {
  execFileSync(process.execPath, [GEN, "--seed", seed, "--count", String(count), "--out", out, "--quiet"], {
    stdio: ["ignore", "inherit", "inherit"],
  });
}

// First few paths where two parsed JSON values differ.
function jsonDiff(a, b, where = "$", out = [], limit = 8) {
  if (out.length >= limit) return out;
  if (typeof a !== typeof b || Array.isArray(a) !== Array.isArray(b) || (a === null) !== (b === null)) {
    out.push(`${where}: ${JSON.stringify(a)} != ${JSON.stringify(b)}`);
  } else if (Array.isArray(a)) {
    if (a.length !== b.length) out.push(`${where}: length ${a.length} != ${b.length}`);
    for (let i = 0; i < Math.min(a.length, b.length); ++i) jsonDiff(a[i], b[i], `${where}[${i}]`, out, limit);
  } else if (a !== null && typeof a === "object") {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    for (const k of keys) {
      if (!(k in a) || !(k in b)) out.push(`${where}.${k}: only in ${k in a ? "checked-in" : "regenerated"}`);
      else jsonDiff(a[k], b[k], `${where}.${k}`, out, limit);
    }
  } else if (a !== b) {
    out.push(`${where}: checked-in ${JSON.stringify(a)} != regenerated ${JSON.stringify(b)}`);
  }
  return out.slice(0, limit);
}

function main() {
  const o = parseArgs(process.argv.slice(2));
  let failed = false;

  // ---- 1. reproducibility of the checked-in fixtures
  const names = fixtureNames(HERE);
  if (names.length === 0) throw new Error(`no fixtures in ${HERE}; run gen_vectors.mjs first`);
  const meta = JSON.parse(fs.readFileSync(path.join(HERE, names[0]), "utf8")).meta;
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "cuzk-vectors-regen-"));
  try {
    generate(tmp, meta.seed, meta.count);
    const regenerated = fixtureNames(tmp);
    const all = [...new Set([...names, ...regenerated])].sort();
    let same = 0;
    for (const f of all) {
      const inRepo = names.includes(f), inNew = regenerated.includes(f);
      if (!inRepo || !inNew) {
        console.log(`DIFF ${f}: ${inRepo ? "not produced by gen_vectors.mjs any more" : "missing from the checked-in fixtures"}`);
        failed = true;
        continue;
      }
      const a = fs.readFileSync(path.join(HERE, f), "utf8");
      const b = fs.readFileSync(path.join(tmp, f), "utf8");
      if (a === b) { ++same; continue; }
      failed = true;
      let detail;
      try { detail = jsonDiff(JSON.parse(a), JSON.parse(b)); } catch (e) { detail = [`unparsable: ${e.message}`]; }
      if (detail.length === 0) detail = ["same JSON value, different formatting"];
      console.log(`DIFF ${f} (${a.length} vs ${b.length} bytes):`);
      for (const d of detail) console.log("    " + (d.length > 300 ? d.slice(0, 300) + "..." : d));
    }
    console.log(`${failed ? "FAIL" : "ok  "} regenerated ${all.length} fixtures (seed "${meta.seed}", count ${meta.count}, ` +
      `${meta.library}): ${same} identical`);
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }

  // ---- 2. fresh random vectors for the C++ tests
  if (o.fresh) {
    const seed = o.freshSeed ?? randomBytes(16).toString("hex");
    const out = o.freshOut ?? fs.mkdtempSync(path.join(os.tmpdir(), "cuzk-vectors-fresh-"));
    generate(out, seed, o.freshCount);
    console.log(`ok   fresh vectors (seed ${seed}, count ${o.freshCount}) written to ${out}`);
    // gtest_discover_tests names tests "Suite.Case": every known-answer suite has "Vectors" in its
    // name (FieldVectors, ...); --no-tests=error turns "no test matched" into a failure.
    const cmd = ["ctest", "--test-dir", o.ctest ?? "<build-dir>", "-R", "[Vv]ectors", "--no-tests=error", "--output-on-failure"];
    if (o.ctest) {
      console.log(`     running CUZK_VECTORS_DIR=${out} ${cmd.join(" ")}`);
      const r = spawnSync(cmd[0], cmd.slice(1), { stdio: "inherit", env: { ...process.env, CUZK_VECTORS_DIR: out } });
      if (r.status !== 0) {
        console.log(`FAIL C++ tests against the fresh vectors (seed ${seed}; rerun with --fresh-seed ${seed})`);
        failed = true;
      } else {
        console.log("ok   C++ tests pass against the fresh vectors");
      }
    } else {
      console.log(`     run the C++ tests on them: CUZK_VECTORS_DIR=${out} ${cmd.map((a) => a.includes("[") ? `'${a}'` : a).join(" ")}`);
    }
  }
  process.exit(failed ? 1 : 0);
}

main();
