# PT_CHECK_LIBDEBUGINFOD
# ----------------------
# elfutils' libdebuginfod, the client of debuginfod servers: debug files
# and executables fetched by build ID (src/elf/debuginfod.h).  Linked
# through PT_LIBS (Makefile.am), not LIBS: the test targets must not map
# libcurl.
AC_DEFUN([PT_CHECK_LIBDEBUGINFOD], [
  PKG_CHECK_MODULES([LIBDEBUGINFOD], [libdebuginfod >= 0.179], [],
    [AC_MSG_ERROR([libdebuginfod not found: install the Debian package libdebuginfod-dev (apt-get install libdebuginfod-dev)])])
  pt_save_LIBS=$LIBS
  LIBS="$LIBDEBUGINFOD_LIBS $LIBS"
  AC_CHECK_HEADER([elfutils/debuginfod.h], [],
    [AC_MSG_ERROR([elfutils/debuginfod.h not found: install libdebuginfod-dev])])
  AC_CHECK_FUNC([debuginfod_set_progressfn], [],
    [AC_MSG_ERROR([libdebuginfod has no debuginfod_set_progressfn: elfutils 0.179 or later is needed])])
  LIBS=$pt_save_LIBS
])
