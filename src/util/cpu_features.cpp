#include "util/cpu_features.hpp"

#include <stdexcept>
#include <string>

#if defined(__x86_64__)
#include <cpuid.h>
#endif

namespace cuzk {

namespace {

struct Features {
  bool bmi2 = false;
  bool adx = false;
  bool sha = false;
  bool ssse3 = false;
  bool sse41 = false;
};

Features detect() {
  Features f;
#if defined(__x86_64__)
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  // __get_cpuid_count checks that leaf 7 exists before querying it.
  if (__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx)) {
    f.bmi2 = (ebx >> 8) & 1;  // CPUID.(EAX=7,ECX=0):EBX bit 8
    f.adx = (ebx >> 19) & 1;  // CPUID.(EAX=7,ECX=0):EBX bit 19
    f.sha = (ebx >> 29) & 1;  // CPUID.(EAX=7,ECX=0):EBX bit 29
  }
  if (__get_cpuid(1, &eax, &ebx, &ecx, &edx)) {
    f.ssse3 = (ecx >> 9) & 1;   // CPUID.(EAX=1):ECX bit 9
    f.sse41 = (ecx >> 19) & 1;  // CPUID.(EAX=1):ECX bit 19
  }
#endif
  return f;
}

}  // namespace

bool cpu_has_adx_bmi2() {
  const Features f = detect();
  return f.bmi2 && f.adx;
}

bool cpu_has_sha_ni() {
  static const bool has = [] {
    const Features f = detect();
    return f.sha && f.ssse3 && f.sse41;
  }();
  return has;
}

void require_cpu_features() {
#if defined(CUZK_X86_ADX)
  const Features f = detect();
  if (!f.bmi2 || !f.adx) {
    std::string missing;
    if (!f.adx) missing = "ADX";
    if (!f.bmi2) missing += missing.empty() ? "BMI2" : " and BMI2";
    throw std::runtime_error(
        "this cuzk binary was built with ADX/BMI2 field arithmetic (CUZK_X86_ADX=ON) but this CPU lacks " + missing +
        "; rebuild with -DCUZK_X86_ADX=OFF");
  }
#endif
}

}  // namespace cuzk
