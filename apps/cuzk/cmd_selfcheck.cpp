// `cuzk selfcheck`: the arithmetic against known answers computed by an independent implementation
// (@noble/curves 2.4.0; tests/vectors/selfcheck_kat.mjs prints them) and against published
// constants, plus algebraic identities on random inputs. Exit code 1 if anything fails.
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "commands.hpp"
#include "ec/bls12_381.hpp"
#include "ec/encoding.hpp"
#include "ec/msm.hpp"
#include "ec/pairing.hpp"
#include "poly/domain.hpp"
#include "util/rng.hpp"

namespace cuzk::cli {

namespace {

using namespace cuzk::ec;
using ff::Fq;
using ff::Fq12;
using ff::Fr;

std::string to_hex(std::span<const uint8_t> b) {
  static constexpr char d[] = "0123456789abcdef";
  std::string s;
  for (uint8_t c : b) {
    s.push_back(d[c >> 4]);
    s.push_back(d[c & 15]);
  }
  return s;
}

const Fr kA = Fr::from_hex("0x1234567890abcdef1234567890abcdef1234567890abcdef1234567890abcdef").value();
const Fr kB = Fr::from_hex("0xfedcba0987654321fedcba0987654321fedcba0987654321fedcba09876543").value();

std::vector<Fq> flatten(const Fq12& e) {
  std::vector<Fq> v;
  for (const auto* c6 : {&e.c0, &e.c1})
    for (const auto* c2 : {&c6->c0, &c6->c1, &c6->c2}) {
      v.push_back(c2->c0);
      v.push_back(c2->c1);
    }
  return v;
}

struct Check {
  const char* name;
  std::function<bool()> run;
};

std::vector<Check> checks() {
  return {
      {"Fr mul and inverse (noble)",
       [] {
         return (kA * kB).to_hex() == "0x5a3cd929af90ebf213cc3fcb90b24f0956be1837bf765a4c070f0436d9877672" &&
                kA.inverse().to_hex() == "0x4487cfeb804c96fe4cfd630c84ea20112712808cc7a20f44bba3a9e8e40e5393";
       }},
      {"Fq mul and inverse (noble)",
       [] {
         auto a =
             Fq::from_hex(
                 "0x0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef")
                 .value();
         auto b =
             Fq::from_hex(
                 "0x0fedcba9876543210fedcba9876543210fedcba9876543210fedcba9876543210fedcba9876543210fedcba987654321")
                 .value();
         return (a * b).to_hex() ==
                    "0x046d13974b8afc5491b54b8f3d237969adbfa2ad234df5693af754eb55467433180b8d78da25dff8fdcd77bb8700c13"
                    "f" &&
                a.inverse().to_hex() ==
                    "0x0e7e4eb917a5a86c29e29eb7f00bc281c87d6f89a88f674d1f382eb4c28268c598052cc012c9cfb877e6e59b569c116"
                    "3";
       }},
      {"G1 scalar mul, compressed encoding (noble)",
       [] {
         auto p = G1(g1_generator()).mul(kA).to_affine();
         auto bytes = g1_to_compressed(p);
         return to_hex(bytes) ==
                    "972a59075fca0729b40b2cea5bb9685afdd219e77407e13631664c53b847cdcad45ab174a073aaa4122ad813fa09448"
                    "5" &&
                g1_from_compressed(bytes).value() == p;
       }},
      {"G2 scalar mul, compressed encoding (noble)",
       [] {
         auto q = G2(g2_generator()).mul(kB).to_affine();
         auto bytes = g2_to_compressed(q);
         return to_hex(bytes) ==
                    "abe98fcd8a93fc1b6717c30b32f6d8050c4b998be43d96bf27479153d619b392d752bfaa23f03d1c4451d41d6bfa073d"
                    "10afaf0afca7f4adcafe2a7fa998b0354d964bac92b7d67ac1345b6bfb2602ae420717a2d7ddb76bca0a810fd03abb5"
                    "7" &&
                g2_from_compressed(bytes).value() == q;
       }},
      {"pairing e(G1, G2) (noble)",
       [] {
         static const char* want[12] = {
             "0x1250ebd871fc0a92a7b2d83168d0d727272d441befa15c503dd8e90ce98db3e7b6d194f60839c508a84305aaca1789b6",
             "0x089a1c5b46e5110b86750ec6a532348868a84045483c92b7af5af689452eafabf1a8943e50439f1d59882a98eaa0170f",
             "0x1368bb445c7c2d209703f239689ce34c0378a68e72a6b3b216da0e22a5031b54ddff57309396b38c881c4c849ec23e87",
             "0x193502b86edb8857c273fa075a50512937e0794e1e65a7617c90d8bd66065b1fffe51d7a579973b1315021ec3c19934f",
             "0x01b2f522473d171391125ba84dc4007cfbf2f8da752f7c74185203fcca589ac719c34dffbbaad8431dad1c1fb597aaa5",
             "0x018107154f25a764bd3c79937a45b84546da634b8f6be14a8061e55cceba478b23f7dacaa35c8ca78beae9624045b4b6",
             "0x19f26337d205fb469cd6bd15c3d5a04dc88784fbb3d0b2dbdea54d43b2b73f2cbb12d58386a8703e0f948226e47ee89d",
             "0x06fba23eb7c5af0d9f80940ca771b6ffd5857baaf222eb95a7d2809d61bfe02e1bfd1b68ff02f0b8102ae1c2d5d5ab1a",
             "0x11b8b424cd48bf38fcef68083b0b0ec5c81a93b330ee1a677d0d15ff7b984e8978ef48881e32fac91b93b47333e2ba57",
             "0x03350f55a7aefcd3c31b4fcb6ce5771cc6a0e9786ab5973320c806ad360829107ba810c5a09ffdd9be2291a0c25a99a2",
             "0x04c581234d086a9902249b64728ffd21a189e87935a954051c7cdba7b3872629a4fafc05066245cb9108f0242d0fe3ef",
             "0x0f41e58663bf08cf068672cbd01a7ec73baca4d72ca93544deff686bfd6df543d48eaa24afe47e1efde449383b676631"};
         auto got = flatten(pairing(g1_generator(), g2_generator()));
         for (int i = 0; i < 12; ++i)
           if (got[i].to_hex() != want[i]) return false;
         return true;
       }},
      {"pairing bilinearity e(aP, bQ) = e(P, Q)^(ab) (noble)",
       [] {
         auto p = G1(g1_generator()).mul(kA).to_affine();
         auto q = G2(g2_generator()).mul(kB).to_affine();
         Fq12 e = pairing(p, q);
         return e.c0.c0.c0.to_hex() ==
                    "0x14528db291193ddcbbf753d87e83767cd94a3457a424e1eb08b635bff529e803bdaf35a9d7f1cf97a2c722de4668ca8"
                    "b" &&
                e == pairing(g1_generator(), g2_generator()).pow((kA * kB).to_canonical());
       }},
      {"G1 MSM of 8 points (noble)",
       [] {
         std::vector<G1Affine> bases;
         std::vector<Fr> scalars;
         Fr s = Fr::one();
         for (uint64_t i = 1; i <= 8; ++i) {
           bases.push_back(G1(g1_generator()).mul_u64(i).to_affine());
           s *= kA;
           scalars.push_back(s);
         }
         return to_hex(g1_to_compressed(msm(bases, scalars).to_affine())) ==
                "b629feb15376a57e1b516105fbee060ee7d86724eb64ba09d5ca4714cb6efec43e5d554458562860284030bd77d3d569";
       }},
      {"MSM 2^12 equals the scalar-weighted sum (G1, G2)",
       [] {
         // Bases c_i*G and random scalars: the MSM must equal (sum k_i c_i) * G.
         Xoshiro256 rng(42);
         const size_t n = 4096;
         std::vector<Fr> k(n), c(n);
         std::vector<G1> j1(n);
         std::vector<G2> j2(n);
         Fr expect = Fr::zero();
         for (size_t i = 0; i < n; ++i) {
           k[i] = (i % 3 == 0) ? Fr::from_u64(i % 2) : Fr::random(rng);  // 0/1-heavy thirds
           c[i] = Fr::from_u64(i * 7919 + 1);
           expect += k[i] * c[i];
         }
         G1 g1(g1_generator());
         G2 g2(g2_generator());
         for (size_t i = 0; i < n; ++i) {
           j1[i] = g1.mul(c[i]);
           j2[i] = g2.mul(c[i]);
         }
         std::vector<G1Affine> b1(n);
         std::vector<G2Affine> b2(n);
         batch_to_affine<G1Config>(j1, b1);
         batch_to_affine<G2Config>(j2, b2);
         return msm(b1, k) == g1.mul(expect) && msm(b2, k) == g2.mul(expect);
       }},
      {"NTT roots: zcash 7^t and snarkjs 5^t",
       [] {
         auto z = poly::Domain::create(size_t{1} << 20, poly::RootConvention::Zcash).value();
         auto s = poly::Domain::create(size_t{1} << 20, poly::RootConvention::Snarkjs).value();
         // w_32 from bellman (ROOT_OF_UNITY) and ffjavascript; w_20 = w_32^(2^12).
         Fr wz = Fr::from_hex("0x16a2a19edfe81f20d09b681922c813b4b63683508c2280b93829971f439f0d2b").value();
         Fr ws = Fr::from_hex("0x0212d79e5b416b6f0fd56dc8d168d6c0c4024ff270b3e0941b788f500b912f1f").value();
         for (int i = 0; i < 12; ++i) wz = wz.square(), ws = ws.square();
         return z.omega() == wz && s.omega() == ws;
       }},
      {"NTT 2^16 round trip and coset round trip",
       [] {
         auto d = poly::Domain::create(size_t{1} << 16, poly::RootConvention::Zcash).value();
         Xoshiro256 rng(43);
         std::vector<Fr> v(d.size());
         for (auto& x : v) x = Fr::random(rng);
         auto w = v;
         d.fft(w);
         // Evaluation at w^1 by Horner must match output[1].
         Fr x = d.omega(), acc = Fr::zero();
         for (size_t i = v.size(); i-- > 0;) acc = acc * x + v[i];
         if (acc != w[1]) return false;
         d.ifft(w);
         if (w != v) return false;
         d.coset_fft(w);
         d.coset_ifft(w);
         return w == v;
       }},
  };
}

}  // namespace

int run_selfcheck(const SelfcheckOptions& o) {
  int failed = 0;
  auto list = checks();
  if (o.json) std::printf("{\"checks\": [");
  for (size_t i = 0; i < list.size(); ++i) {
    bool ok = false;
    std::string err;
    try {
      ok = list[i].run();
    } catch (const std::exception& e) {
      err = e.what();
    }
    failed += !ok;
    if (o.json) {
      std::printf("%s{\"name\": \"%s\", \"ok\": %s}", i ? ", " : "", list[i].name, ok ? "true" : "false");
    } else {
      std::printf("%-4s %s%s%s\n", ok ? "ok" : "FAIL", list[i].name, err.empty() ? "" : ": ", err.c_str());
    }
  }
  if (o.json) {
    std::printf("], \"passed\": %zu, \"failed\": %d}\n", list.size() - failed, failed);
  } else {
    std::printf("selfcheck: %zu passed, %d failed\n", list.size() - failed, failed);
  }
  return failed ? 1 : 0;
}

}  // namespace cuzk::cli
