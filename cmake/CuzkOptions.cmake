# Compiler flags shared by every cuzk target, collected in the interface target cuzk_flags.
add_library(cuzk_flags INTERFACE)
target_compile_options(cuzk_flags INTERFACE -Wall -Wextra -Werror -Wno-unused-parameter)
# GCC's SLP vectoriser copies field elements through SSE registers right after the scalar stores of
# the multiplication, which stalls on store forwarding (measured: Fq mul 43 ns instead of 36 ns).
target_compile_options(cuzk_flags INTERFACE $<$<CXX_COMPILER_ID:GNU>:-fno-tree-slp-vectorize>)
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
  target_compile_options(cuzk_flags INTERFACE -mbmi2 -madx)
  target_compile_definitions(cuzk_flags INTERFACE CUZK_X86_ADX=1)
endif()
message(STATUS "cuzk: x86-64 ADX field arithmetic: ${CUZK_X86_ADX}")

if(CUZK_SANITIZE)
  target_compile_options(cuzk_flags INTERFACE -fsanitize=address,undefined -fno-sanitize-recover=all
                                              -fno-omit-frame-pointer)
  target_link_options(cuzk_flags INTERFACE -fsanitize=address,undefined)
endif()
