# PT_CHECK_LIBIBERTY
# ------------------
# GNU libiberty's Rust demangler (rust_demangle(): legacy and v0 symbols),
# a static library with its header under libiberty/ (Debian's
# libiberty-dev).  Sets LIBIBERTY_LIBS.
AC_DEFUN([PT_CHECK_LIBIBERTY], [
  AC_CHECK_HEADER([libiberty/demangle.h], [],
    [AC_MSG_ERROR([libiberty/demangle.h not found: install the Debian package libiberty-dev (apt-get install libiberty-dev)])])
  pt_save_LIBS=$LIBS
  AC_SEARCH_LIBS([rust_demangle], [iberty], [],
    [AC_MSG_ERROR([libiberty's rust_demangle not found: install the Debian package libiberty-dev (apt-get install libiberty-dev)])])
  LIBS=$pt_save_LIBS
  AS_CASE([$ac_cv_search_rust_demangle],
    ["none required"], [LIBIBERTY_LIBS=],
    [LIBIBERTY_LIBS=$ac_cv_search_rust_demangle])
  AC_SUBST([LIBIBERTY_LIBS])
])
