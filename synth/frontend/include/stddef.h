/* Minimal stddef.h for synth's C front end (used only when no system compiler headers are
   found). Relies on clang's predefined macros. */
#ifndef _SYNTH_STDDEF_H
#define _SYNTH_STDDEF_H
typedef __SIZE_TYPE__ size_t;
typedef __PTRDIFF_TYPE__ ptrdiff_t;
typedef __WCHAR_TYPE__ wchar_t;
typedef struct { long long __ll; long double __ld; } max_align_t;
#undef NULL
#define NULL ((void *)0)
#define offsetof(type, member) __builtin_offsetof(type, member)
#endif
#undef __need_size_t
#undef __need_ptrdiff_t
#undef __need_wchar_t
#undef __need_NULL
#undef __need_wint_t
