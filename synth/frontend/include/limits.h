/* Minimal limits.h for synth's C front end, from clang's predefined macros (the C library's
   limits.h first, where there is one). */
#ifndef _SYNTH_LIMITS_H
#define _SYNTH_LIMITS_H
#if __STDC_HOSTED__ && defined(__has_include_next)
#if __has_include_next(<limits.h>)
#define _GCC_LIMITS_H_
#include_next <limits.h>
#endif
#endif
#undef CHAR_BIT
#undef SCHAR_MAX
#undef SCHAR_MIN
#undef UCHAR_MAX
#undef SHRT_MAX
#undef SHRT_MIN
#undef USHRT_MAX
#undef INT_MAX
#undef INT_MIN
#undef UINT_MAX
#undef LONG_MAX
#undef LONG_MIN
#undef ULONG_MAX
#undef LLONG_MAX
#undef LLONG_MIN
#undef ULLONG_MAX
#define CHAR_BIT __CHAR_BIT__
#define SCHAR_MAX __SCHAR_MAX__
#define SCHAR_MIN (-__SCHAR_MAX__ - 1)
#define UCHAR_MAX (__SCHAR_MAX__ * 2 + 1)
#define SHRT_MAX __SHRT_MAX__
#define SHRT_MIN (-__SHRT_MAX__ - 1)
#define USHRT_MAX (__SHRT_MAX__ * 2 + 1)
#define INT_MAX __INT_MAX__
#define INT_MIN (-__INT_MAX__ - 1)
#define UINT_MAX (__INT_MAX__ * 2U + 1U)
#define LONG_MAX __LONG_MAX__
#define LONG_MIN (-__LONG_MAX__ - 1L)
#define ULONG_MAX (__LONG_MAX__ * 2UL + 1UL)
#define LLONG_MAX __LONG_LONG_MAX__
#define LLONG_MIN (-__LONG_LONG_MAX__ - 1LL)
#define ULLONG_MAX (__LONG_LONG_MAX__ * 2ULL + 1ULL)
#endif
