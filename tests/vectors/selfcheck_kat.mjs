// Prints the known answers embedded in apps/cuzk/cmd_selfcheck.cpp, computed by @noble/curves.
// Run: cd tests/vectors && node selfcheck_kat.mjs
import { bls12_381 } from "@noble/curves/bls12-381.js";
const Fr = bls12_381.fields.Fr, Fp = bls12_381.fields.Fp, Fp12 = bls12_381.fields.Fp12;
const hex = (x) => "0x" + x.toString(16).padStart(96, "0");
const hexr = (x) => "0x" + x.toString(16).padStart(64, "0");
const a = 0x1234567890abcdef1234567890abcdef1234567890abcdef1234567890abcdefn % Fr.ORDER;
const b = 0xfedcba0987654321fedcba0987654321fedcba0987654321fedcba09876543n % Fr.ORDER;
console.log("fr a*b", hexr(Fr.mul(a,b)), "inv a", hexr(Fr.inv(a)));
const qa = 0x0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdefn % Fp.ORDER;
const qb = 0x0fedcba9876543210fedcba9876543210fedcba9876543210fedcba9876543210fedcba9876543210fedcba987654321n % Fp.ORDER;
console.log("fq a*b", hex(Fp.mul(qa,qb)), "inv", hex(Fp.inv(qa)));
const P = bls12_381.G1.Point.BASE.multiply(a), Q = bls12_381.G2.Point.BASE.multiply(b);
console.log("g1 [a]G", Buffer.from(P.toBytes()).toString("hex"));
console.log("g2 [b]G", Buffer.from(Q.toBytes()).toString("hex"));
const e = bls12_381.pairing(bls12_381.G1.Point.BASE, bls12_381.G2.Point.BASE);
const flat = [e.c0.c0.c0,e.c0.c0.c1,e.c0.c1.c0,e.c0.c1.c1,e.c0.c2.c0,e.c0.c2.c1,e.c1.c0.c0,e.c1.c0.c1,e.c1.c1.c0,e.c1.c1.c1,e.c1.c2.c0,e.c1.c2.c1];
console.log("e(G1,G2)", flat.map(hex).join(" "));
const e2 = bls12_381.pairing(P, Q);
console.log("e(aG1,bG2) c0.c0.c0", hex(e2.c0.c0.c0));
// MSM: sum_{i<8} s_i * [i+1]G1 with s_i = a^(i+1)
let acc = bls12_381.G1.Point.ZERO; let s = 1n;
for (let i=0;i<8;i++){ s = Fr.mul(s,a); acc = acc.add(bls12_381.G1.Point.BASE.multiply(BigInt(i+1)).multiply(s)); }
console.log("msm8", Buffer.from(acc.toBytes()).toString("hex"));
