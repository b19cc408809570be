# PT_CHECK_DEMANGLE
# -----------------
# The C++ ABI's __cxa_demangle (in libstdc++), for C++ names in reports.
# Optional: without it, names are shown as they are in the symbol table.
AC_DEFUN([PT_CHECK_DEMANGLE], [
  pt_save_LIBS=$LIBS
  AC_SEARCH_LIBS([__cxa_demangle], [stdc++],
    [AC_DEFINE([HAVE_CXA_DEMANGLE], [1], [Define if __cxa_demangle links.])
     test "$ac_cv_search___cxa_demangle" = "none required" ||
       DEMANGLE_LIBS=$ac_cv_search___cxa_demangle],
    [AC_MSG_WARN([__cxa_demangle not found (libstdc++): C++ names will not be demangled])])
  LIBS=$pt_save_LIBS
  AC_SUBST([DEMANGLE_LIBS])
])
