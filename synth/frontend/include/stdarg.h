/* Minimal stdarg.h for synth's C front end (used only when no system compiler headers are
   found). */
#ifndef _SYNTH_STDARG_H
#define _SYNTH_STDARG_H
typedef __builtin_va_list va_list;
typedef __builtin_va_list __gnuc_va_list;
#define va_start(ap, param) __builtin_va_start(ap, param)
#define va_end(ap) __builtin_va_end(ap)
#define va_arg(ap, type) __builtin_va_arg(ap, type)
#define va_copy(dest, src) __builtin_va_copy(dest, src)
#endif
#undef __need___va_list
