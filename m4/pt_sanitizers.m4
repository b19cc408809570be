# PT_ENABLE_SANITIZERS
# --------------------
# --enable-sanitizers builds everything with AddressSanitizer and
# UndefinedBehaviorSanitizer; the whole test suite must pass that way.
AC_DEFUN([PT_ENABLE_SANITIZERS], [
  AC_ARG_ENABLE([sanitizers],
    [AS_HELP_STRING([--enable-sanitizers], [build with ASan and UBSan])],
    [], [enable_sanitizers=no])
  SANITIZE_CFLAGS=
  SANITIZE_LDFLAGS=
  AS_IF([test "x$enable_sanitizers" = xyes], [
    SANITIZE_CFLAGS="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
    SANITIZE_LDFLAGS="-fsanitize=address,undefined"
    pt_save_CFLAGS=$CFLAGS
    pt_save_LDFLAGS=$LDFLAGS
    CFLAGS="$CFLAGS $SANITIZE_CFLAGS"
    LDFLAGS="$LDFLAGS $SANITIZE_LDFLAGS"
    AC_MSG_CHECKING([whether $CC can build with sanitizers])
    AC_LINK_IFELSE([AC_LANG_PROGRAM([], [])], [AC_MSG_RESULT([yes])],
      [AC_MSG_RESULT([no])
       AC_MSG_ERROR([--enable-sanitizers: $CC cannot link with -fsanitize=address,undefined])])
    CFLAGS=$pt_save_CFLAGS
    LDFLAGS=$pt_save_LDFLAGS
  ])
  AM_CONDITIONAL([SANITIZERS], [test "x$enable_sanitizers" = xyes])
  AC_SUBST([SANITIZE_CFLAGS])
  AC_SUBST([SANITIZE_LDFLAGS])
])
