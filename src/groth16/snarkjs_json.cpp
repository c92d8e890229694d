#include "groth16/snarkjs_json.hpp"

#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>
#include <string>

#include "ec/pairing.hpp"
#include "util/quote.hpp"

namespace cuzk::groth16 {

namespace {

using json = nlohmann::json;
using ojson = nlohmann::ordered_json;
using ec::Fq;
using ec::Fq2;
using ff::Fq12;
using ff::Fq6;

// Errors are thrown inside the parsers (one catch per entry point turns them into a Result); the
// message is the complete text the user sees.
struct ParseError {
  std::string message;
};

class Ctx {
 public:
  explicit Ctx(std::string_view name) : name_(name) {}
  [[noreturn]] void fail(const std::string& path, const std::string& why) const {
    throw ParseError{name_ + (path.empty() ? "" : ": " + path) + ": " + why};
  }
  const std::string& name() const { return name_; }

 private:
  std::string name_;
};

std::string type_name(const json& j) {
  return j.type_name();
}

json parse_text(const Ctx& ctx, std::string_view text) {
  try {
    return json::parse(text);
  } catch (const json::exception& e) {  // parse_error, and out_of_range for a number like 1e99999
    throw ParseError{ctx.name() + ": invalid JSON: " + e.what()};
  }
}

const json& member(const Ctx& ctx, const json& obj, const std::string& path, const char* key) {
  auto it = obj.find(key);
  if (it == obj.end()) ctx.fail(path, std::string("missing member \"") + key + "\"");
  return *it;
}

std::string idx(const std::string& path, size_t i) {
  return path + "[" + std::to_string(i) + "]";
}

const json& array_of(const Ctx& ctx, const json& j, const std::string& path, size_t n) {
  if (!j.is_array()) ctx.fail(path, "expected an array of " + std::to_string(n) + ", got " + type_name(j));
  if (j.size() != n)
    ctx.fail(path, "expected an array of " + std::to_string(n) + " elements, got " + std::to_string(j.size()));
  return j;
}

// A base-10 string of a canonical field element: digits only, no leading zeros, below the modulus.
template <class F>
F decimal(const Ctx& ctx, const json& j, const std::string& path) {
  if (!j.is_string()) ctx.fail(path, "expected a decimal string, got " + type_name(j));
  const auto& s = j.get_ref<const std::string&>();
  if (s.empty()) ctx.fail(path, "empty decimal string");
  for (char c : s)
    if (c < '0' || c > '9') ctx.fail(path, short_quote(s) + " is not a decimal number (digits only, no sign)");
  if (s.size() > 1 && s[0] == '0') ctx.fail(path, short_quote(s) + " is not canonical (leading zero)");
  auto v = F::from_decimal(s);
  if (!v) ctx.fail(path, v.error());
  return *v;
}

Fq2 fq2(const Ctx& ctx, const json& j, const std::string& path) {
  array_of(ctx, j, path, 2);
  return Fq2(decimal<Fq>(ctx, j[0], idx(path, 0)), decimal<Fq>(ctx, j[1], idx(path, 1)));
}

enum class Infinity { Refuse, Allow };

G1Affine g1(const Ctx& ctx, const json& j, const std::string& path, Infinity inf) {
  array_of(ctx, j, path, 3);
  const Fq x = decimal<Fq>(ctx, j[0], idx(path, 0));
  const Fq y = decimal<Fq>(ctx, j[1], idx(path, 1));
  const Fq z = decimal<Fq>(ctx, j[2], idx(path, 2));
  if (z.is_zero()) {
    if (inf == Infinity::Refuse) ctx.fail(path, "G1 point is the point at infinity");
    if (!x.is_zero() || !y.is_one()) ctx.fail(path, "G1 point at infinity must be [\"0\", \"1\", \"0\"]");
    return G1Affine();
  }
  if (!z.is_one()) ctx.fail(idx(path, 2), "z must be \"1\" (affine point) or \"0\" (infinity)");
  G1Affine p(x, y);
  if (!p.is_on_curve()) ctx.fail(path, "G1 point is not on the curve");
  if (!ec::g1_in_subgroup(p)) ctx.fail(path, "G1 point is not in the prime-order subgroup");
  return p;
}

G2Affine g2(const Ctx& ctx, const json& j, const std::string& path, Infinity inf) {
  array_of(ctx, j, path, 3);
  const Fq2 x = fq2(ctx, j[0], idx(path, 0));
  const Fq2 y = fq2(ctx, j[1], idx(path, 1));
  const Fq2 z = fq2(ctx, j[2], idx(path, 2));
  if (z.is_zero()) {
    if (inf == Infinity::Refuse) ctx.fail(path, "G2 point is the point at infinity");
    if (!x.is_zero() || !y.is_one())
      ctx.fail(path, "G2 point at infinity must be [[\"0\", \"0\"], [\"1\", \"0\"], [\"0\", \"0\"]]");
    return G2Affine();
  }
  if (!z.is_one()) ctx.fail(idx(path, 2), "z must be [\"1\", \"0\"] (affine point) or [\"0\", \"0\"] (infinity)");
  G2Affine p(x, y);
  if (!p.is_on_curve()) ctx.fail(path, "G2 point is not on the curve");
  if (!ec::g2_in_subgroup(p)) ctx.fail(path, "G2 point is not in the prime-order subgroup");
  return p;
}

Fq12 fq12(const Ctx& ctx, const json& j, const std::string& path) {
  array_of(ctx, j, path, 2);
  Fq6 c[2];
  for (size_t i = 0; i < 2; ++i) {
    const std::string p6 = idx(path, i);
    array_of(ctx, j[i], p6, 3);
    c[i] = Fq6(fq2(ctx, j[i][0], idx(p6, 0)), fq2(ctx, j[i][1], idx(p6, 1)), fq2(ctx, j[i][2], idx(p6, 2)));
  }
  return Fq12(c[0], c[1]);
}

void expect_string(const Ctx& ctx, const json& obj, const char* key, const char* want, const char* what) {
  const json& v = member(ctx, obj, "", key);
  if (!v.is_string()) ctx.fail(key, std::string("expected a string, got ") + type_name(v));
  const auto& s = v.get_ref<const std::string&>();
  if (s != want) ctx.fail(key, short_quote(s) + " is not supported (expected \"" + want + "\"" + what + ")");
}

void expect_header(const Ctx& ctx, const json& j) {
  if (!j.is_object()) ctx.fail("", "expected a JSON object, got " + type_name(j));
  expect_string(ctx, j, "protocol", "groth16", "");
  expect_string(ctx, j, "curve", "bls12381", ": this prover works over BLS12-381 only");
}

// Writers.
std::string dec(const Fq& a) {
  return a.to_decimal();
}
ojson w_fq2(const Fq2& a) {
  return ojson::array({dec(a.c0), dec(a.c1)});
}
ojson w_g1(const G1Affine& p) {
  if (p.infinity) return ojson::array({"0", "1", "0"});
  return ojson::array({dec(p.x), dec(p.y), "1"});
}
ojson w_g2(const G2Affine& p) {
  if (p.infinity) return ojson::array({ojson::array({"0", "0"}), ojson::array({"1", "0"}), ojson::array({"0", "0"})});
  return ojson::array({w_fq2(p.x), w_fq2(p.y), ojson::array({"1", "0"})});
}
ojson w_fq6(const Fq6& a) {
  return ojson::array({w_fq2(a.c0), w_fq2(a.c1), w_fq2(a.c2)});
}
// snarkjs writes with JSON.stringify(obj, null, 1).
std::string dump(const ojson& j) {
  return j.dump(1);
}

template <class T, class F>
Result<T> guarded(F&& f) {
  try {
    return f();
  } catch (const ParseError& e) {
    return make_error(e.message);
  }
}

Result<std::string> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return make_error(path + ": cannot open file");
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) return make_error(path + ": read error");
  return ss.str();
}

}  // namespace

Result<Proof> parse_snarkjs_proof(std::string_view text, std::string_view name) {
  return guarded<Proof>([&]() -> Proof {
    const Ctx ctx(name);
    const json j = parse_text(ctx, text);
    expect_header(ctx, j);
    Proof p;
    p.a = g1(ctx, member(ctx, j, "", "pi_a"), "pi_a", Infinity::Refuse);
    p.b = g2(ctx, member(ctx, j, "", "pi_b"), "pi_b", Infinity::Refuse);
    p.c = g1(ctx, member(ctx, j, "", "pi_c"), "pi_c", Infinity::Refuse);
    return p;
  });
}

Result<std::vector<Fr>> parse_snarkjs_public(std::string_view text, std::string_view name) {
  return guarded<std::vector<Fr>>([&]() -> std::vector<Fr> {
    const Ctx ctx(name);
    const json j = parse_text(ctx, text);
    if (!j.is_array()) ctx.fail("", "expected an array of decimal strings, got " + type_name(j));
    std::vector<Fr> out;
    out.reserve(j.size());
    for (size_t i = 0; i < j.size(); ++i) out.push_back(decimal<Fr>(ctx, j[i], idx("", i)));
    return out;
  });
}

Result<VerifyingKey> parse_snarkjs_vk(std::string_view text, std::string_view name) {
  return guarded<VerifyingKey>([&]() -> VerifyingKey {
    const Ctx ctx(name);
    const json j = parse_text(ctx, text);
    expect_header(ctx, j);
    VerifyingKey vk;
    vk.alpha_g1 = g1(ctx, member(ctx, j, "", "vk_alpha_1"), "vk_alpha_1", Infinity::Refuse);
    vk.beta_g2 = g2(ctx, member(ctx, j, "", "vk_beta_2"), "vk_beta_2", Infinity::Refuse);
    vk.gamma_g2 = g2(ctx, member(ctx, j, "", "vk_gamma_2"), "vk_gamma_2", Infinity::Refuse);
    vk.delta_g2 = g2(ctx, member(ctx, j, "", "vk_delta_2"), "vk_delta_2", Infinity::Refuse);

    const json& n = member(ctx, j, "", "nPublic");
    if (!n.is_number_unsigned()) ctx.fail("nPublic", "expected a non-negative integer, got " + n.dump());
    const uint64_t n_public = n.get<uint64_t>();
    const json& ic = member(ctx, j, "", "IC");
    if (!ic.is_array()) ctx.fail("IC", "expected an array of G1 points, got " + type_name(ic));
    if (ic.empty() || ic.size() - 1 != n_public)
      ctx.fail("IC", "has " + std::to_string(ic.size()) + " points, nPublic = " + std::to_string(n_public) + " needs " +
                         std::to_string(n_public + 1));
    vk.ic.reserve(ic.size());
    for (size_t i = 0; i < ic.size(); ++i) vk.ic.push_back(g1(ctx, ic[i], idx("IC", i), Infinity::Allow));

    if (auto it = j.find("vk_alphabeta_12"); it != j.end()) {
      const Fq12 ab = fq12(ctx, *it, "vk_alphabeta_12");
      if (ab != ec::pairing(vk.alpha_g1, vk.beta_g2))
        ctx.fail("vk_alphabeta_12", "does not equal e(vk_alpha_1, vk_beta_2)");
    }
    return vk;
  });
}

std::string write_snarkjs_proof(const Proof& proof) {
  ojson j;
  j["pi_a"] = w_g1(proof.a);
  j["pi_b"] = w_g2(proof.b);
  j["pi_c"] = w_g1(proof.c);
  j["protocol"] = "groth16";
  j["curve"] = "bls12381";
  return dump(j);
}

std::string write_snarkjs_public(std::span<const Fr> inputs) {
  ojson j = ojson::array();
  for (const Fr& x : inputs) j.push_back(x.to_decimal());
  return dump(j);
}

std::string write_snarkjs_vk(const VerifyingKey& vk) {
  if (vk.ic.empty()) throw std::invalid_argument("write_snarkjs_vk: verifying key has no IC points");
  const Fq12 ab = ec::pairing(vk.alpha_g1, vk.beta_g2);
  ojson j;
  j["protocol"] = "groth16";
  j["curve"] = "bls12381";
  j["nPublic"] = vk.ic.size() - 1;
  j["vk_alpha_1"] = w_g1(vk.alpha_g1);
  j["vk_beta_2"] = w_g2(vk.beta_g2);
  j["vk_gamma_2"] = w_g2(vk.gamma_g2);
  j["vk_delta_2"] = w_g2(vk.delta_g2);
  j["vk_alphabeta_12"] = ojson::array({w_fq6(ab.c0), w_fq6(ab.c1)});
  ojson ic = ojson::array();
  for (const G1Affine& p : vk.ic) ic.push_back(w_g1(p));
  j["IC"] = std::move(ic);
  return dump(j);
}

Result<Proof> load_snarkjs_proof(const std::string& path) {
  auto t = read_file(path);
  if (!t) return make_error(t.error());
  return parse_snarkjs_proof(*t, path);
}

Result<std::vector<Fr>> load_snarkjs_public(const std::string& path) {
  auto t = read_file(path);
  if (!t) return make_error(t.error());
  return parse_snarkjs_public(*t, path);
}

Result<VerifyingKey> load_snarkjs_vk(const std::string& path) {
  auto t = read_file(path);
  if (!t) return make_error(t.error());
  return parse_snarkjs_vk(*t, path);
}

}  // namespace cuzk::groth16
