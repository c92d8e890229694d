// Deterministic snarkjs Groth16 proof for tests/test_prover_zkey.cpp: runs snarkjs 0.7.6's own
// prover (snarkjs.groth16.prove = src/groth16_prove.js) with the blinding scalars r, s fixed by
// patching Fr.random on ffjavascript's cached BLS12-381 curve object (the one snarkjs's
// getCurveFromQ returns), checks the proof with snarkjs.groth16.verify, and writes
//   { zkey, wtns, r, s, proof: {pi_a, pi_b, pi_c}, publicSignals, h_scalars }
// h_scalars are the domainSize scalars that multiply the zkey's H section (section 9), recomputed
// independently here with BigInt FFTs exactly as groth16_prove.js does (A, B from the coefficient
// section, C = A*B pointwise, each moved to the odd half of the 2n-domain, p = A*B - C).
//
//   node prove_det.mjs NODE_MODULES_DIR X.zkey X.wtns X.verification_key.json R S OUT.json
import { createRequire } from "node:module";
import fs from "node:fs";
import path from "node:path";

const [nm, zkeyName, wtnsName, vkName, rStr, sStr, outName] = process.argv.slice(2);
if (!outName) {
  console.error("usage: prove_det.mjs NODE_MODULES_DIR ZKEY WTNS VK.json R S OUT.json");
  process.exit(2);
}
const require = createRequire(path.join(path.resolve(nm), "noop.js"));
const snarkjs = require("snarkjs");
const ffjavascript = require("ffjavascript");

// Minimal iden3 binfile reader: magic(4) version(u32) nSections(u32) {id u32, size u64, data}.
function readBin(name, magic) {
  const b = fs.readFileSync(name);
  if (b.toString("ascii", 0, 4) !== magic) throw new Error(`${name}: not ${magic}`);
  const n = b.readUInt32LE(8);
  const sec = {};
  let p = 12;
  for (let i = 0; i < n; i++) {
    const id = b.readUInt32LE(p), size = Number(b.readBigUInt64LE(p + 4));
    sec[id] = b.subarray(p + 12, p + 12 + size);
    p += 12 + size;
  }
  return sec;
}
const leToBig = (buf, off, n) => {
  let x = 0n;
  for (let i = n - 1; i >= 0; i--) x = (x << 8n) | BigInt(buf[off + i]);
  return x;
};

const zk = readBin(zkeyName, "zkey");
if (zk[1].readUInt32LE(0) !== 1) throw new Error("not a groth16 zkey");
const hdr = zk[2];
const n8q = hdr.readUInt32LE(0);
const n8r = hdr.readUInt32LE(4 + n8q);
const R = leToBig(hdr, 8 + n8q, n8r);
let q = 8 + n8q + n8r;
const nVars = hdr.readUInt32LE(q), nPublic = hdr.readUInt32LE(q + 4), domainSize = hdr.readUInt32LE(q + 8);

const wt = readBin(wtnsName, "wtns");
const n8w = wt[1].readUInt32LE(0);
if (wt[1].readUInt32LE(4 + n8w) !== nVars || n8w !== n8r) throw new Error("witness size mismatch");
const w = [];
for (let i = 0; i < nVars; i++) w.push(leToBig(wt[2], i * n8r, n8r));

// BigInt field and FFTs, roots as ffjavascript: smallest non-residue g, w_max = g^t, w_k = w_{k+1}^2.
const mod = (a) => ((a % R) + R) % R;
const mul = (a, b) => (a * b) % R;
const pow = (a, e) => {
  let x = 1n;
  a = mod(a);
  for (; e > 0n; e >>= 1n, a = mul(a, a)) if (e & 1n) x = mul(x, a);
  return x;
};
const inv = (a) => pow(a, R - 2n);
let s2 = 0, t = R - 1n;
while ((t & 1n) === 0n) { t >>= 1n; s2++; }
let nqr = 2n;
while (pow(nqr, (R - 1n) / 2n) === 1n) nqr++;
const roots = new Array(s2 + 1);
roots[s2] = pow(nqr, t);
for (let k = s2 - 1; k >= 0; k--) roots[k] = mul(roots[k + 1], roots[k + 1]);
const log2n = Math.log2(domainSize);
function dft(a, omega) {  // naive O(n^2) would be too slow for 2^10 with BigInt; radix-2 DIT
  const n = a.length;
  for (let i = 1, j = 0; i < n; i++) {
    let bit = n >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    if (i < j) [a[i], a[j]] = [a[j], a[i]];
  }
  for (let len = 2; len <= n; len <<= 1) {
    const wl = pow(omega, BigInt(n / len)), half = len >> 1;
    const tw = [1n];
    for (let k = 1; k < half; k++) tw.push(mul(tw[k - 1], wl));
    for (let i = 0; i < n; i += len)
      for (let k = 0; k < half; k++) {
        const u = a[i + k], v = mul(a[i + k + half], tw[k]);
        a[i + k] = mod(u + v);
        a[i + k + half] = mod(u - v);
      }
  }
  return a;
}
const cs = zk[4];
const nCoef = cs.readUInt32LE(0);
const Rm = (1n << BigInt(8 * n8r)) % R, R2inv = inv(mul(Rm, Rm));
const Aev = new Array(domainSize).fill(0n), Bev = new Array(domainSize).fill(0n);
for (let i = 0; i < nCoef; i++) {
  const o = 4 + i * (12 + n8r);
  const m = cs.readUInt32LE(o), c = cs.readUInt32LE(o + 4), sig = cs.readUInt32LE(o + 8);
  const v = mul(leToBig(cs, o + 12, n8r), R2inv);
  const dst = m === 0 ? Aev : Bev;
  dst[c] = mod(dst[c] + mul(v, w[sig]));
}
const Cev = Aev.map((a, i) => mul(a, Bev[i]));
const wn = roots[log2n], w2n = log2n === s2 ? mul(nqr, nqr) : roots[log2n + 1];
function oddCoset(ev) {
  const c = dft(ev.slice(), inv(wn));
  const ni = inv(BigInt(domainSize));
  let k = ni;
  for (let i = 0; i < c.length; i++) { c[i] = mul(c[i], k); k = mul(k, w2n); }
  return dft(c, wn);
}
const Ao = oddCoset(Aev), Bo = oddCoset(Bev), Co = oddCoset(Cev);
const hScalars = Ao.map((a, i) => mod(mul(a, Bo[i]) - Co[i]).toString());

// snarkjs's prover with r, s fixed.
const curve = await ffjavascript.buildBls12381();
const Fr = curve.Fr;
const r = mod(BigInt(rStr)), s = mod(BigInt(sStr));
const saved = Fr.random;
const seq = [Fr.e(r), Fr.e(s)];
Fr.random = () => {
  if (seq.length === 0) throw new Error("Fr.random called more than twice");
  return seq.shift();
};
const { proof, publicSignals } = await snarkjs.groth16.prove(zkeyName, wtnsName);
Fr.random = saved;
if (seq.length !== 0) throw new Error("snarkjs did not draw r and s");
const vk = JSON.parse(fs.readFileSync(vkName, "utf8"));
if (!(await snarkjs.groth16.verify(vk, publicSignals, proof))) throw new Error("snarkjs proof does not verify");
if (JSON.stringify(publicSignals) !== JSON.stringify(w.slice(1, nPublic + 1).map(String)))
  throw new Error("public signals mismatch");

const out = {
  note: "generated by tests/groth16/det/regen.sh (snarkjs 0.7.6 groth16.prove with fixed r, s)",
  zkey: path.basename(zkeyName),
  wtns: path.basename(wtnsName),
  r: r.toString(),
  s: s.toString(),
  proof: { pi_a: proof.pi_a, pi_b: proof.pi_b, pi_c: proof.pi_c },
  publicSignals,
  h_scalars: hScalars,
};
fs.writeFileSync(outName, JSON.stringify(out, null, 1) + "\n");
await curve.terminate();
