/* Minimal stdint.h for synth's C front end: the C library's where there is one, else the
   exact-width types from clang's predefined macros. */
#ifndef _SYNTH_STDINT_H
#define _SYNTH_STDINT_H
#if __STDC_HOSTED__ && defined(__has_include_next)
#if __has_include_next(<stdint.h>)
#define _SYNTH_SYSTEM_STDINT 1
#include_next <stdint.h>
#endif
#endif
#ifndef _SYNTH_SYSTEM_STDINT
typedef __INT8_TYPE__ int8_t;
typedef __INT16_TYPE__ int16_t;
typedef __INT32_TYPE__ int32_t;
typedef __INT64_TYPE__ int64_t;
typedef __UINT8_TYPE__ uint8_t;
typedef __UINT16_TYPE__ uint16_t;
typedef __UINT32_TYPE__ uint32_t;
typedef __UINT64_TYPE__ uint64_t;
typedef __INTPTR_TYPE__ intptr_t;
typedef __UINTPTR_TYPE__ uintptr_t;
typedef __INTMAX_TYPE__ intmax_t;
typedef __UINTMAX_TYPE__ uintmax_t;
#define INT32_MAX __INT32_MAX__
#define INT64_MAX __INT64_MAX__
#define SIZE_MAX __SIZE_MAX__
#endif
#endif
