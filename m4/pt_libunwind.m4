# PT_CHECK_LIBUNWIND_PTRACE
# -------------------------
# libunwind's remote (ptrace) unwinder.  On Debian it comes with
# libunwind-dev, which ships libunwind-ptrace.pc.  Stop with the package
# name when it is missing: without it ptprof cannot unwind anything.
AC_DEFUN([PT_CHECK_LIBUNWIND_PTRACE], [
  PKG_CHECK_MODULES([LIBUNWIND], [libunwind-ptrace >= 1.6 libunwind-generic >= 1.6], [],
    [AC_MSG_ERROR([libunwind-ptrace >= 1.6 not found: install the Debian package libunwind-dev (apt-get install libunwind-dev)])])
  pt_save_CFLAGS=$CFLAGS
  pt_save_LIBS=$LIBS
  CFLAGS="$CFLAGS $LIBUNWIND_CFLAGS"
  LIBS="$LIBUNWIND_LIBS $LIBS"
  AC_MSG_CHECKING([that a remote unwinder links])
  AC_LINK_IFELSE([AC_LANG_PROGRAM([[#include <libunwind-ptrace.h>]],
      [[unw_addr_space_t as = unw_create_addr_space(&_UPT_accessors, 0);
        void *h = _UPT_create(1); _UPT_destroy(h); unw_destroy_addr_space(as);]])],
    [AC_MSG_RESULT([yes])],
    [AC_MSG_RESULT([no])
     AC_MSG_ERROR([cannot link against libunwind-ptrace: install the Debian package libunwind-dev])])
  CFLAGS=$pt_save_CFLAGS
  LIBS=$pt_save_LIBS
])
