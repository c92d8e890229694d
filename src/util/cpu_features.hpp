#pragma once
// Run-time CPU feature checks for instruction-set extensions chosen at build time.

namespace cuzk {

// True when the CPU supports both BMI2 (mulx) and ADX (adcx/adox), as reported by cpuid leaf 7.
// Always false on non-x86-64 targets.
bool cpu_has_adx_bmi2();

// True when the CPU has the SHA extensions (SHA-NI: sha256rnds2/msg1/msg2) together with the SSSE3
// and SSE4.1 shuffles and blends the SHA-256 code around them uses. Always false off x86-64.
bool cpu_has_sha_ni();

// Throws std::runtime_error when this binary was compiled with CPU extensions the running CPU
// lacks (today: CUZK_X86_ADX needs BMI2 and ADX). Call it at start-up, before any field
// arithmetic, so that users get a message instead of SIGILL. Does nothing otherwise.
void require_cpu_features();

}  // namespace cuzk
