#pragma once
// Skips a GPU test (GTEST_SKIP with the reason) when the machine has no usable CUDA device; plain
// C++, so both the .cu and the .cpp GPU tests use it.
#include <gtest/gtest.h>

#include "gpu/device.hpp"

#define CUZK_REQUIRE_GPU()                                             \
  do {                                                                 \
    static const auto scan = ::cuzk::gpu::scan_devices();              \
    if (scan.devices.empty()) GTEST_SKIP() << scan.unavailable_reason; \
  } while (0)
