#pragma once
// CUZK_LIFETIMEBOUND marks a member function whose result refers to *this (or a parameter whose
// referent the result keeps): clang then reports, as -Wdangling, a result kept in a variable
// beyond the temporary it refers to. Other compilers ignore it.
#if defined(__clang__)
#define CUZK_LIFETIMEBOUND [[clang::lifetimebound]]
#else
#define CUZK_LIFETIMEBOUND
#endif
