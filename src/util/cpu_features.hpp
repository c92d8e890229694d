#pragma once
// Run-time CPU feature checks for instruction-set extensions chosen at build time.

namespace cuzk {

// True when the CPU supports both BMI2 (mulx) and ADX (adcx/adox), as reported by cpuid leaf 7.
// Always false on non-x86-64 targets.
bool cpu_has_adx_bmi2();

// Throws std::runtime_error when this binary was compiled with CPU extensions the running CPU
// lacks (today: CUZK_X86_ADX needs BMI2 and ADX). Call it at start-up, before any field
// arithmetic, so that users get a message instead of SIGILL. Does nothing otherwise.
void require_cpu_features();

}  // namespace cuzk
