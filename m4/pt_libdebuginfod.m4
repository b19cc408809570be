# PT_CHECK_LIBDEBUGINFOD
# ----------------------
# elfutils' libdebuginfod, the client of debuginfod servers: debug files
# and executables fetched by build ID (src/elf/debuginfod.h).  Its header
# is needed at build time; the library itself is opened with dlopen() at
# the first fetch (as libdwfl does), so it is checked for here but not
# linked: linked, it loads libcurl's stack into every run.
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
