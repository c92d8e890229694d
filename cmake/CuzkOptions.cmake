# Compiler flags shared by every cuzk target, collected in the interface target cuzk_flags.
add_library(cuzk_flags INTERFACE)
target_compile_options(cuzk_flags INTERFACE $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Werror -Wno-unused-parameter>)
# GCC's SLP vectoriser copies field elements through SSE registers right after the scalar stores of
# the multiplication, which stalls on store forwarding (measured: Fq mul 43 ns instead of 36 ns).
target_compile_options(cuzk_flags INTERFACE $<$<AND:$<COMPILE_LANGUAGE:CXX>,$<CXX_COMPILER_ID:GNU>>:-fno-tree-slp-vectorize>)
target_compile_features(cuzk_flags INTERFACE cxx_std_20)

find_package(Threads REQUIRED)
target_link_libraries(cuzk_flags INTERFACE Threads::Threads)

# The ADX/BMI2 path is chosen at configure time: AUTO enables it when the build machine has the
# instructions; the binary checks the CPU at start-up (cuzk::require_cpu_features) and refuses to
# run with a clear message instead of dying on SIGILL.
if(CMAKE_SYSTEM_PROCESSOR MATCHES "x86_64|AMD64")
  if(CUZK_X86_ADX STREQUAL "AUTO")
    execute_process(COMMAND grep -q -w adx /proc/cpuinfo RESULT_VARIABLE _adx_rc)
    execute_process(COMMAND grep -q -w bmi2 /proc/cpuinfo RESULT_VARIABLE _bmi2_rc)
    if(_adx_rc EQUAL 0 AND _bmi2_rc EQUAL 0)
      set(CUZK_X86_ADX ON)
    else()
      set(CUZK_X86_ADX OFF)
    endif()
  endif()
else()
  set(CUZK_X86_ADX OFF)
endif()
if(CUZK_X86_ADX)
  target_compile_options(cuzk_flags INTERFACE $<$<COMPILE_LANGUAGE:CXX>:-mbmi2 -madx>
                                              $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-mbmi2,-madx>)
  target_compile_definitions(cuzk_flags INTERFACE CUZK_X86_ADX=1)
endif()
message(STATUS "cuzk: x86-64 ADX field arithmetic: ${CUZK_X86_ADX}")

# Sanitizers. Every binary links the ASan+UBSan runtimes (so every allocation has redzones and a
# quarantine, and leaks are reported); which code is instrumented is CUZK_SANITIZE_SCOPE:
#  - boundary (default): the code that handles what comes from outside or is shared between threads
#    (files and their parsers, the C1/vanilla/request decoders, the engine, the gRPC service, the
#    apps): what the sanitizer tests exercise, without paying for instrumented maths under them
#    (CI's sanitizer build, docs/ci.md). The hot arithmetic and circuit files of those libraries
#    sit in OBJECT libraries of their own (cuzk_filecoin_hot, cuzk_pce_hot, cuzk_groth16_hot in
#    src/CMakeLists.txt) that are never instrumented, so they compile with the same command in a
#    sanitizer build as in a plain one of the same build type: CI's second build takes them from
#    ccache (scripts/run-tests.sh).
#  - all: every target, as a deeper local pass.
# Instrumented code is compiled at -O1 (after the build type's flags): -O3 with ASan costs twice
# the compile time and the sanitizer tests do not need it. The glue above the parsers (the engine,
# the gRPC service, the backend, the apps: cuzk_sanitize_glue) at -O0: half of -O1's compile time
# under ASan (the cuzk app's first unity batch 64 -> 26 s; docs/ci.md) and no hot loop of its own
# (the maths under it is never instrumented); the parsers keep -O1 for the fuzzers' speed.
set(CUZK_SANITIZE_SCOPE boundary CACHE STRING "What CUZK_SANITIZE instruments: boundary or all")
set_property(CACHE CUZK_SANITIZE_SCOPE PROPERTY STRINGS boundary all)
add_library(cuzk_sanitize INTERFACE)
add_library(cuzk_sanitize_glue INTERFACE)
if(CUZK_SANITIZE)
  if(NOT CUZK_SANITIZE_SCOPE MATCHES "^(boundary|all)$")
    message(FATAL_ERROR "CUZK_SANITIZE_SCOPE must be boundary or all, not '${CUZK_SANITIZE_SCOPE}'")
  endif()
  # One list for the instrumented targets and for single files (ec/encoding.cpp) that opt in.
  set(CUZK_SANITIZE_FLAGS -O1 -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
                          -gline-tables-only)
  target_compile_options(cuzk_sanitize INTERFACE $<$<COMPILE_LANGUAGE:CXX>:${CUZK_SANITIZE_FLAGS}>)
  target_compile_options(cuzk_sanitize_glue INTERFACE $<$<COMPILE_LANGUAGE:CXX>:${CUZK_SANITIZE_FLAGS} -O0>)
  target_link_options(cuzk_flags INTERFACE -fsanitize=address,undefined)
  if(CUZK_SANITIZE_SCOPE STREQUAL "all")
    target_link_libraries(cuzk_flags INTERFACE cuzk_sanitize)
  endif()
endif()

# libFuzzer (fuzz/): checked here; the instrumentation is added in the top-level CMakeLists.txt.
if(CUZK_FUZZ AND (NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang" OR NOT CUZK_SANITIZE))
  message(FATAL_ERROR "CUZK_FUZZ needs clang and CUZK_SANITIZE=ON (libFuzzer with ASan+UBSan)")
endif()

# The CUDA backend (src/gpu, src/groth16/gpu): built when nvcc is found (AUTO), required (ON) or left out (OFF).
# Sanitizer builds leave it out: ASan does not cover device code and the CUDA runtime trips it.
set(CUZK_CUDA AUTO CACHE STRING "Build the CUDA backend: AUTO, ON or OFF")
set(CUZK_HAVE_CUDA OFF)
if(CUZK_CUDA STREQUAL "AUTO" AND CUZK_SANITIZE)
  set(CUZK_CUDA OFF)
endif()
if(NOT CUZK_CUDA STREQUAL "OFF")
  include(CheckLanguage)
  if(NOT CMAKE_CUDA_COMPILER AND EXISTS /usr/local/cuda/bin/nvcc)
    set(CMAKE_CUDA_COMPILER /usr/local/cuda/bin/nvcc)
  endif()
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    # Hopper machine code plus PTX for newer GPUs.
    if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
      set(CMAKE_CUDA_ARCHITECTURES 90)
    endif()
    enable_language(CUDA)
    # CMake 3.25 knows nvcc's dialect flags only up to C++17; nvcc >= 12 takes -std=c++20.
    if(NOT CMAKE_CUDA20_STANDARD_COMPILE_OPTION)
      set(CMAKE_CUDA20_STANDARD_COMPILE_OPTION "-std=c++20")
      set(CMAKE_CUDA20_EXTENSION_COMPILE_OPTION "-std=c++20")
      list(APPEND CMAKE_CUDA_COMPILE_FEATURES cuda_std_20)
      set(CMAKE_CUDA20_COMPILE_FEATURES cuda_std_20)
    endif()
    set(CMAKE_CUDA_STANDARD 20)
    set(CMAKE_CUDA_STANDARD_REQUIRED ON)
    find_package(CUDAToolkit REQUIRED)
    set(CUZK_HAVE_CUDA ON)
    target_compile_options(cuzk_flags INTERFACE
      $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-Wall,-Wextra,-Wno-unused-parameter --Werror=all-warnings
                                       --diag-suppress=1675,550>)  # nvcc front end on host headers: 1675 "#pragma GCC unroll", 550 asm outputs "never used"
  elseif(CUZK_CUDA STREQUAL "ON")
    message(FATAL_ERROR "CUZK_CUDA=ON but no CUDA compiler (nvcc) was found; install the CUDA toolkit or "
                        "set CMAKE_CUDA_COMPILER")
  endif()
endif()
message(STATUS "cuzk: CUDA backend: ${CUZK_HAVE_CUDA}")
