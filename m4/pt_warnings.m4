# PT_WARN_FLAGS
# -------------
# The warning set of strace and elfutils, each flag kept only if the
# compiler takes it.  --enable-werror turns them into errors.
AC_DEFUN([PT_WARN_FLAGS], [
  AC_ARG_ENABLE([werror],
    [AS_HELP_STRING([--enable-werror], [treat compiler warnings as errors])],
    [], [enable_werror=no])
  WARN_CFLAGS=
  for pt_flag in -Wall -Wextra -Wshadow -Wformat=2 -Wformat-security \
      -Wmissing-prototypes -Wmissing-declarations -Wstrict-prototypes \
      -Wold-style-definition -Wpointer-arith -Wwrite-strings -Wcast-align \
      -Wundef -Wnested-externs -Wimplicit-fallthrough -Wnull-dereference \
      -Wduplicated-cond -Wlogical-op -Wjump-misses-init -Wvla; do
    AC_MSG_CHECKING([whether $CC accepts $pt_flag])
    pt_save_CFLAGS=$CFLAGS
    CFLAGS="$CFLAGS -Werror $pt_flag"
    AC_COMPILE_IFELSE([AC_LANG_PROGRAM([], [])],
      [AC_MSG_RESULT([yes]); WARN_CFLAGS="$WARN_CFLAGS $pt_flag"],
      [AC_MSG_RESULT([no])])
    CFLAGS=$pt_save_CFLAGS
  done
  AS_IF([test "x$enable_werror" = xyes], [WARN_CFLAGS="$WARN_CFLAGS -Werror"])
  AC_SUBST([WARN_CFLAGS])
])
