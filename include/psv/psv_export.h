/* psv_export.h -- symbol visibility for the psv C API. Part of the public headers. */
#ifndef PSV_EXPORT_H
#define PSV_EXPORT_H

#if defined(_WIN32) && !defined(PSV_STATIC)
#  ifdef PSV_BUILDING_LIBRARY
#    define PSV_API __declspec(dllexport)
#  else
#    define PSV_API __declspec(dllimport)
#  endif
#elif defined(__GNUC__) || defined(__clang__)
#  define PSV_API __attribute__((visibility("default")))
#else
#  define PSV_API
#endif

#endif /* PSV_EXPORT_H */
